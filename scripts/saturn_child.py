"""Saturn runs as children of the reproduction scripts, stopped without losing their work.

subprocess.run(cmd, check=True) answers Ctrl-C by killing its child (SIGKILL) a quarter of a second
later, while saturn, stopped by the same signal, may still be writing its finished trials and its
saved batch state (a Jiang Fig. 6 batch saves about 2 GB). run() instead passes SIGINT on to the
child, waits for it to exit however long its files take, and then raises KeyboardInterrupt.
A figure's runs go one after another: each is one study, which runs its batches side by side over
the machine's threads itself (host/study), so no script runs saturns in parallel.
install_stop_signals() makes SIGINT and SIGTERM (and SIGHUP unless ignored, as under nohup) raise
KeyboardInterrupt in the script, as saturn run treats all three as a stop; a script started in the
background of another script inherits SIGINT ignored, and SIGTERM would otherwise end the script
and leave its run unsupervised.
"""
import signal
import subprocess


def run(cmd, check=True, **kwargs):
    """subprocess.run(cmd, check=check, **kwargs), but a stop reaches the child and is waited out."""
    p = subprocess.Popen(cmd, **kwargs)
    interrupted = False
    while True:
        try:
            rc = p.wait()
            break
        except KeyboardInterrupt:  # the script is being stopped
            interrupted = True
            p.send_signal(signal.SIGINT)  # harmless where the terminal's Ctrl-C already reached it
    if interrupted:
        raise KeyboardInterrupt
    if check and rc != 0:
        raise subprocess.CalledProcessError(rc, cmd)
    return subprocess.CompletedProcess(cmd, rc)


def _stop(signum, frame):
    raise KeyboardInterrupt


def install_stop_signals():
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    if signal.getsignal(signal.SIGHUP) != signal.SIG_IGN:
        signal.signal(signal.SIGHUP, _stop)
