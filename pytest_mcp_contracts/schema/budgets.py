"""How far each walk over a JSON Schema goes: every depth and work bound, in one place.

A tool's schemas come from the server under test, so every walk over one is bounded (the
MCP spec: implementations SHOULD bound schema depth). Each bound is named for what it
bounds; the values are far beyond real tool schemas and well inside what validators,
hypothesis-jsonschema and Python's recursion limit survive. ``tests/e2e/test_hostile.py``
holds them to account.
"""

from __future__ import annotations

from typing import Final

# -- depths ----------------------------------------------------------------------------------

#: Levels of one schema document that are indexed ($ids, anchors) and walked: generation
#: refuses a deeper schema (deeper ones exhaust the recursion of the metaschema check and
#: of hypothesis-jsonschema), summaries stop there, drift does not find anchors below it.
DOCUMENT_DEPTH: Final = 64
#: Levels below a schema's root that drift compares (one ``review`` change says so below).
DRIFT_DEPTH: Final = 32
#: How often one ``$ref`` is followed inside itself (generation and drift): past it the
#: recursion is cut (``false`` for generation, an equal marker for drift).
RECURSION_UNROLL: Final = 3
#: Levels of a schema whose corners the coverage phase enumerates.
CORNER_DEPTH: Final = 6
#: Levels the simplest valid value is derived through (combinators count as levels).
SIMPLEST_DEPTH: Final = 4 * CORNER_DEPTH
#: Nested object levels below the root that invalid inputs mutate.
MUTATION_DEPTH: Final = 8
#: ``$ref`` / ``allOf`` hops followed from one (sub)schema when invalid inputs collect the
#: schema objects that apply to a value.
REF_HOPS: Final = 8
#: Nesting a shrink follows into objects and arrays.
SHRINK_DEPTH: Final = 8

# -- work --------------------------------------------------------------------------------------

#: Schema reads for one summary (fields, branches, refs): a wide hostile schema stays cheap.
SUMMARY_VISITS: Final = 50_000
#: Subschemas one client rule visits in one schema (``judges/clients``).
CLIENT_RULE_VISITS: Final = 50_000
#: Comparison steps for one tool's drift (sub-schema comparisons plus normalisations, both
#: schemas, both sides): DAG-shaped $refs could otherwise make the walk exponential.
DRIFT_WORK: Final = 100_000
#: Inlining ``$ref``s can blow a schema up exponentially; past this many sub-schemas
#: generation unrolls recursion less deeply, then gives up.
EXPANDED_SUBSCHEMAS: Final = 20_000
#: Sub-schemas read for one tool's typed models (``export/model``): past it, any value.
EXPORT_NODES: Final = 20_000
