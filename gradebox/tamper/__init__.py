"""Noticing when student code changes torch, the optimizer or the grader's own tools.

Two complementary checks, because student code can run before or during a diagnosis:

* the watch (``watch.start_watch``) records the identity of every watched object before student
  code runs and reports what changed afterwards: a sandboxed job loads the student's file, or runs
  a notebook's cells, after its watch was taken;
* provenance (``provenance.provenance_problems``) needs no earlier snapshot: a watched Python
  function must have been defined inside torch's (or the grader's) own source folder.  A
  replacement written in a notebook cell or a student file is defined somewhere else.  This is
  what a notebook's own self-check relies on, because the student's cells ran before the grader
  was imported.

The sandbox's server, which never runs student code, takes one watch after it has imported
everything (``watch.seal``); every job it forks inherits it, so what a job compares with is torch
as installed, and taking it costs a job nothing.  ``seal`` also makes the code of installed
functions unchangeable in those jobs (``code_lock``), which no snapshot of identities could notice.

One concern per module:

* ``surfaces``: what is watched (whole modules and classes, the rest of torch more loosely, the
  builtins, hooks, the grader's own functions), read into one snapshot;
* ``watch``: taking a snapshot and comparing with it, from a private namespace student code cannot
  edit, and sealing the server's watch;
* ``tags``: the quick comparison, by the version tags of the dicts that hold the watched objects;
* ``provenance``: where each watched object was defined;
* ``code_lock``: the audit hook that refuses changes to installed functions' code.

The package imports all of them at once: a part imported only after a watch was taken would be
new grader code, which that watch reports as a change.
"""

from . import code_lock, provenance, surfaces, tags, watch  # noqa: F401 - all of them now, see above
