"""Drift: an entry's recorded listing against its current one, each difference a ``Change``
of one impact (``vocabulary.Impact``). ``listing.diff_listing`` is the way in; a tool's
listing is classified in ``tool_listing`` (its schemas in ``schema_diff``), a prompt's,
resource's or template's in ``content_listing``."""
