"""overlap: training-overlap checks of the reference items at corpus scale (`dp overlap`), and provenance flags.

* :mod:`~decisionpivot.overlap.normalise` - the normalisation (lower-case, ``\\w+`` tokens, 13-grams);
* :mod:`~decisionpivot.overlap.hashing`, :mod:`~decisionpivot.overlap.chunks` - vectorised token and
  n-gram hashes of raw UTF-8 bytes, exactly equal to the normalisation;
* :mod:`~decisionpivot.overlap.index` - the items' n-grams (the object a cluster broadcasts);
* :mod:`~decisionpivot.overlap.sources` - inputs (formats, compression, fsspec URLs) and their parts;
* :mod:`~decisionpivot.overlap.scan` - scanning one part (what every worker runs);
* :mod:`~decisionpivot.overlap.state` - the resume journal;
* :mod:`~decisionpivot.overlap.engines` - this process, or Dask distributed;
* :mod:`~decisionpivot.overlap.run` - filtering a folder of items, overlap.json, the command;
* :mod:`~decisionpivot.overlap.provenance` - per system: does its training documentation name a task's source?

Importing this package imports nothing heavy; Dask, zstandard, fsspec file systems and pyarrow are
imported only by the code that needs them (the ``overlap`` extra).
"""
