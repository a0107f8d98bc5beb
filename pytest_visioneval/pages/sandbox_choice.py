"""Whether Chromium can use its own sandbox here, and why not when it cannot.

Chromium's sandbox puts each renderer in its own namespaces with a seccomp
filter. Run as root it refuses to start with it (it needs another user), and
as another user it needs unprivileged user namespaces (or a setuid helper,
which the headless shell does not ship). Where neither holds, the browser
runs with ``--no-sandbox`` and says so in each page's ``render.json``; the
page is then contained by the rules in docs/rendering.md (environment,
network, files, time, memory) only.
"""

from __future__ import annotations

import os
from pathlib import Path

_USERNS_SWITCHES = (Path("/proc/sys/kernel/unprivileged_userns_clone"), Path("/proc/sys/user/max_user_namespaces"))


def user_namespaces_allowed(switches: tuple[Path, ...] = _USERNS_SWITCHES) -> bool:
    """Whether an unprivileged process may make a user namespace (both switches, where they exist, non-zero)."""
    for switch in switches:
        try:
            if int(switch.read_text().strip() or "0") == 0:
                return False
        except (OSError, ValueError):
            continue  # absent: this kernel has no such switch
    return True


def sandbox_choice(euid: int | None = None, userns: bool | None = None) -> tuple[bool, str]:
    """``(use Chromium's sandbox, what render.json says about it)``."""
    euid = os.geteuid() if euid is None else euid
    if euid == 0:
        return False, "off: running as root, where Chromium's sandbox cannot start (it needs another user)"
    if not (user_namespaces_allowed() if userns is None else userns):
        return False, "off: this machine does not allow unprivileged user namespaces, which Chromium's sandbox needs"
    return True, "on"
