"""The runner backend's Python worker, split by process role.

  worker     the worker: the host's protocol and the supervision of each run
  forkers    forking the candidates' processes (a zygote on Linux)
  candidate  what runs in a candidate's own process, before its program
  scan       reading a run's output for MSG (twin of host-node/src/backends/scan.js)
  stuck      telling a candidate that waits on nothing from a slow one
  setup      the worker's start: CPU share, memory limit, preloading
  sandbox    isolation (also a launcher script of its own, for subproc runs)
  settings   what "init" set, in one object

python3 host-node/python/autodd_worker.py starts it.
"""
