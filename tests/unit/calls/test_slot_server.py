"""calls/slot_server.py: slots granted first come first served, taken back from a process that goes away."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_visioneval.calls.slot_server import SlotClient, SlotServer, SlotServerGone
from tests.conftest import run_in_threads


@pytest.fixture
def server() -> Iterator[SlotServer]:
    made = SlotServer(1)
    yield made
    made.close()


def raw(server: SlotServer) -> socket.socket:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(server.address)
    conn.settimeout(5)
    return conn


def granted_within(conn: socket.socket, seconds: float) -> bool:
    conn.settimeout(seconds)
    try:
        return conn.recv(1) == b"G"
    except TimeoutError:
        return False
    finally:
        conn.settimeout(5)


def test_the_limit_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        SlotServer(0)


def test_asks_are_granted_in_the_order_they_arrive_whichever_process_sent_them(server: SlotServer) -> None:
    x, y, z = raw(server), raw(server), raw(server)
    x.sendall(b"A")
    assert granted_within(x, 5)
    for conn in (y, z, x):  # y, then z, then x again wait behind x's slot
        conn.sendall(b"A")
        time.sleep(0.05)  # the server must see them in this order
    assert not granted_within(y, 0.2)
    x.sendall(b"R")
    assert granted_within(y, 5)
    assert not granted_within(z, 0.2) and not granted_within(x, 0.1)
    y.sendall(b"R")
    assert granted_within(z, 5)
    assert not granted_within(x, 0.2)
    z.sendall(b"R")
    assert granted_within(x, 5)
    for conn in (x, y, z):
        conn.close()


def test_a_closed_connection_gives_back_its_slots_and_drops_its_asks(server: SlotServer) -> None:
    holder, queued, waiter = raw(server), raw(server), raw(server)
    holder.sendall(b"A")
    assert granted_within(holder, 5)
    queued.sendall(b"A")
    time.sleep(0.05)
    waiter.sendall(b"A")
    queued.close()  # its ask, first in line, must not swallow the slot
    holder.close()
    assert granted_within(waiter, 5)
    waiter.close()


def test_a_message_outside_the_protocol_ends_that_connection_only(server: SlotServer) -> None:
    bad, good = raw(server), raw(server)
    bad.sendall(b"A")
    assert granted_within(bad, 5)
    bad.sendall(b"R R")  # a slot it gave back, then garbage: dropped, holding nothing
    assert bad.recv(1) == b""
    good.sendall(b"A")
    assert granted_within(good, 5)
    good.close()
    bad.close()


def test_a_client_shares_one_connection_between_threads_and_never_exceeds_the_limit() -> None:
    server = SlotServer(3)
    client = SlotClient(server.address)
    inside = most = 0
    lock = threading.Lock()

    def work(_: int) -> None:
        nonlocal inside, most
        for _ in range(4):
            client.acquire()
            with lock:
                inside += 1
                most = max(most, inside)
            time.sleep(0.01)
            with lock:
                inside -= 1
            client.release()

    run_in_threads(work, 8)
    client.close()
    server.close()
    assert inside == 0 and most == 3


def test_waiting_threads_learn_that_the_server_went_away() -> None:
    server = SlotServer(1)
    client = SlotClient(server.address)
    client.acquire()
    failures: list[BaseException] = []

    def wait() -> None:
        try:
            client.acquire()
        except SlotServerGone as exc:
            failures.append(exc)

    thread = threading.Thread(target=wait)
    thread.start()
    time.sleep(0.1)
    server.close()
    thread.join(5)
    assert not thread.is_alive()
    assert len(failures) == 1 and "slot server" in str(failures[0])
    with pytest.raises(SlotServerGone):
        client.acquire()
    client.close()


_HOLDER = """
import sys, time
from pathlib import Path
from pytest_visioneval.calls.slot_server import SlotClient
client = SlotClient(sys.argv[1])
client.acquire()
Path(sys.argv[2]).write_text("")
time.sleep(60)
"""


def test_a_killed_process_gives_its_slot_back(server: SlotServer, tmp_path: Path) -> None:
    held = tmp_path / "held"
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, server.address, str(held)])
    client = SlotClient(server.address)
    try:
        deadline = time.monotonic() + 15
        while not held.exists():
            assert time.monotonic() < deadline, "the holder never took its slot"
            time.sleep(0.01)
        got = threading.Event()
        thread = threading.Thread(target=lambda: (client.acquire(), got.set()), daemon=True)
        thread.start()
        assert not got.wait(0.3), "took the slot another process holds"
        holder.kill()
        holder.wait(10)
        assert got.wait(5), "the killed process's slot never came back"
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(10)
        client.close()


def test_closing_the_server_removes_its_socket() -> None:
    server = SlotServer(2)
    folder = Path(server.address).parent
    assert Path(server.address).exists()
    server.close()
    assert not folder.exists()
