"""Saturn runs as children of the reproduction scripts, stopped without losing their work.

subprocess.run(cmd, check=True) answers Ctrl-C by killing its child (SIGKILL) a quarter of a second
later, while saturn, stopped by the same signal, may still be writing its finished trials and its
saved batch state (a Jiang Fig. 6 batch saves about 2 GB). run() instead passes SIGINT on to the
child, waits for it to exit however long its files take, and then raises KeyboardInterrupt.
side_by_side() runs several such runs at once, one per core, and stops them together.
install_stop_signals() makes SIGINT and SIGTERM (and SIGHUP unless ignored, as under nohup) raise
KeyboardInterrupt in the script, as saturn run treats all three as a stop; a script started in the
background of another script inherits SIGINT ignored, and SIGTERM would otherwise end the script
and leave its runs unsupervised.
"""
import concurrent.futures
import os
import signal
import subprocess
import threading

_RUNNING = set()  # the runs in flight
_STOP = threading.Event()  # set by side_by_side on a failure or a stop: start no further run
_LOCK = threading.Lock()  # a run joins _RUNNING, or sees _STOP, never neither


def run(cmd, check=True, **kwargs):
    """subprocess.run(cmd, check=check, **kwargs), but a stop reaches the child and is waited out;
    refused (exit 130) once side_by_side has stopped."""
    if _STOP.is_set():
        raise subprocess.CalledProcessError(130, cmd)
    p = subprocess.Popen(cmd, **kwargs)
    with _LOCK:
        _RUNNING.add(p)
        stopped = _STOP.is_set()
    if stopped:  # side_by_side stopped while this run started: it may not have been signalled
        p.send_signal(signal.SIGINT)
    interrupted = False
    try:
        while True:
            try:
                rc = p.wait()
                break
            except KeyboardInterrupt:  # only in the main thread: the script is being stopped
                interrupted = True
                p.send_signal(signal.SIGINT)  # harmless where the terminal's Ctrl-C already reached it
    finally:
        with _LOCK:
            _RUNNING.discard(p)
    if interrupted:
        raise KeyboardInterrupt
    if check and rc != 0:
        raise subprocess.CalledProcessError(rc, cmd)
    return subprocess.CompletedProcess(cmd, rc)


def _stop_all():
    """Start no further run and stop the runs in flight with SIGINT (they save their trials)."""
    with _LOCK:
        _STOP.set()
        running = list(_RUNNING)
    for p in running:
        p.send_signal(signal.SIGINT)


def side_by_side(fn, items):
    """[fn(x) for x in items], one item per core at a time, fn making its runs with run(). A
    failure or a stop (Ctrl-C, or a stop signal to this script alone) starts no further run and
    stops the runs in flight, so that they save their finished trials (saturn reproduce --resume
    goes on from them); then it is raised."""
    def guarded(x):  # a failed or stopped run stops the others at once, before its worker takes another
        try:
            return fn(x)
        except BaseException:
            _stop_all()
            raise

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        futures = [pool.submit(guarded, x) for x in items]
        try:
            return [f.result() for f in futures]
        except BaseException:
            for f in futures:
                f.cancel()
            _stop_all()
            raise


def _stop(signum, frame):
    raise KeyboardInterrupt


def install_stop_signals():
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    if signal.getsignal(signal.SIGHUP) != signal.SIG_IGN:
        signal.signal(signal.SIGHUP, _stop)
