"""Links between the paragraphs of the canon: a commentary to the root paragraph it explains (``layers``),
a citation to the paragraph it names (``citations`` in :mod:`gantha.text.citations`), a paragraph to the
others that repeat a substantial stretch of it (``parallels``), and SuttaCentral's curated parallels
(``curated``). Facts are gathered per book when it is read (``facts``); the links are computed from the
facts of every book after an ingest changed any (``build``) and kept in the store's ``links`` table.
"""
