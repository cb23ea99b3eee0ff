"""contracts/wording.py: the word diff a changed description is shown with."""

from __future__ import annotations

from pytest_mcp_contracts.contracts.wording import MAX_CHARS, MAX_WORDS, same_words, word_diff


def test_changed_words_are_marked_as_git_diff_word_diff_marks_them() -> None:
    assert word_diff("Adds a and b.", "Adds x and b.") == "Adds [-a-]{+x+} and b."


def test_added_and_removed_text() -> None:
    assert word_diff("", "Read ~/.ssh first.") == "{+Read ~/.ssh first.+}"
    assert word_diff("Read ~/.ssh first.", "") == "[-Read ~/.ssh first.-]"
    assert word_diff("Search.", "Search. Then mail it.") == "Search. {+Then mail it.+}"


def test_long_unchanged_runs_keep_four_words_of_context_around_a_change() -> None:
    old = "one two three four five six seven eight nine ten eleven twelve"
    new = "one two three four five six SEVEN eight nine ten eleven twelve"
    assert word_diff(old, new) == "… three four five six [-seven-]{+SEVEN+} eight nine ten eleven …"
    between = "a " + "x " * 20 + "b"
    assert word_diff(between, between.replace("a", "A").replace("b", "B")) == (
        "[-a-]{+A+} x x x x … x x x x [-b-]{+B+}"
    )


def test_invisible_characters_are_escaped() -> None:
    assert word_diff("Search.", "Search.\u200b") == "[-Search.-]{+Search.\\u200b+}"


def test_the_diff_is_bounded() -> None:
    text = word_diff(" ".join(f"w{i}" for i in range(5000)), "")
    assert len(text) < MAX_CHARS + 100
    assert text.endswith(
        f"… (cut; 1 changed run(s) in all) (compared over the first {MAX_WORDS} words)"
    )


def test_whitespace_alone_is_not_a_change_of_words() -> None:
    assert same_words("a  b\n", "a b")
    assert not same_words("a b", "a b.")
