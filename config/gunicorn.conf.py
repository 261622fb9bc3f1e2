"""gunicorn settings of the run command (config/supervisord.conf passes the rest on its command line).

At start-up the master warns when SITE_URL names this machine on another port than the one it binds
(config.env.site_url_port_warning), or a host that ALLOWED_HOSTS refuses (certificates.site_url).

A master killed with SIGKILL cannot stop its workers: left alone, each one serves on until it
notices its new parent (up to half the worker timeout), keeping the port from the master that
supervisord starts again. Linux's parent-death signal has the kernel send each worker SIGTERM,
gunicorn's graceful stop, the moment its master dies.
"""

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def post_fork(server, worker) -> None:
    if not sys.platform.startswith("linux"):
        return
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != worker.ppid:  # the master died before the prctl: nobody will send it
        os.kill(os.getpid(), signal.SIGTERM)


def on_starting(server) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.conf import settings

    from config.env import site_url_port_warning
    from config.site_url import site_url_host_refused

    refused = site_url_host_refused(settings.SITE_URL, settings.ALLOWED_HOSTS, settings.DEBUG)
    if refused:
        server.log.warning(refused)
    for address in server.cfg.bind:
        host, _sep, port = address.rpartition(":")
        if host and port.isascii() and port.isdigit():  # isdigit() alone takes "²", which int() refuses
            warning = site_url_port_warning(settings.SITE_URL, int(port))
            if warning:
                server.log.warning(warning)
