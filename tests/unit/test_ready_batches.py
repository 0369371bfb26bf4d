"""The worker's ready queue (py_vfs/web/ready_batches.py), driven by hand: its entries from
JavaScript are kept in a list and run when the test says, as the worker's scheduler would run
them, and its clock is the test's. (tests/pyodide/scheduler.test.mjs runs it on Pyodide's own
loop.)"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from py_vfs.web.ready_batches import SLICE_S, ReadyBatches


class Loop:
    """What an asyncio.Handle asks of its loop. Not a real loop: creating one in Pyodide would
    replace the running WebLoop as the default."""

    def __init__(self) -> None:
        self.handler: Callable[[Loop, dict], None] | None = None

    def get_debug(self) -> bool:
        return False

    def set_exception_handler(self, handler: Callable[[Loop, dict], None]) -> None:
        self.handler = handler

    def call_exception_handler(self, context: dict) -> None:
        assert self.handler is not None, context
        self.handler(self, context)


class Driver:
    """A ReadyBatches whose scheduled entries wait in ``entries`` until ``run_next``."""

    def __init__(self) -> None:
        self.loop = Loop()
        self.entries: list[Callable[[], None]] = []
        self.now = 0.0
        self.entered = 0
        self.batches = ReadyBatches(self.loop, self.entries.append,  # type: ignore[arg-type]
                                    self.enter, lambda: self.now)

    def enter(self) -> None:
        self.entered += 1

    def run_next(self) -> None:
        self.entries.pop(0)()

    def run_all(self, bound: int = 1_000) -> int:
        """Runs entries until none is left; how many ran."""
        ran = 0
        while self.entries:
            assert ran < bound, "the entries never stop"
            self.run_next()
            ran += 1
        return ran


@pytest.fixture
def driver() -> Driver:
    return Driver()


def test_callbacks_run_in_order_and_many_take_two_entries(driver: Driver) -> None:
    ran: list[int] = []
    for number in range(50):
        driver.batches.call_soon(ran.append, number)
    assert len(driver.entries) == 1  # one entry scheduled for the whole queue
    # The drain, and the one kept in case it had stopped midway: that one finds nothing to do.
    assert driver.run_all() == 2
    assert ran == list(range(50))
    assert driver.entered == 1 and driver.batches.entries == 1


def test_callbacks_made_ready_by_a_drain_run_in_it(driver: Driver) -> None:
    ran: list[int] = []

    def chain(left: int) -> None:
        ran.append(left)
        if left:
            driver.batches.call_soon(chain, left - 1)

    driver.batches.call_soon(chain, 99)
    assert driver.run_all() == 2
    assert ran == list(range(99, -1, -1))


def test_a_drain_stops_when_its_slice_is_over_and_the_next_takes_the_rest(driver: Driver) -> None:
    ran: list[int] = []

    def slow(number: int) -> None:
        ran.append(number)
        driver.now += SLICE_S / 2

    for number in range(6):
        driver.batches.call_soon(slow, number)
    driver.run_next()
    assert ran == [0, 1, 2]  # past its slice after the third
    assert len(driver.entries) == 1
    driver.run_next()
    assert ran == [0, 1, 2, 3, 4, 5]


def test_a_cancelled_callback_does_not_run(driver: Driver) -> None:
    ran: list[str] = []
    driver.batches.call_soon(ran.append, "a")
    driver.batches.call_soon(ran.append, "b").cancel()
    driver.batches.call_soon(ran.append, "c")
    driver.run_all()
    assert ran == ["a", "c"]


def test_an_error_goes_to_the_loops_handler_and_the_rest_run(driver: Driver) -> None:
    seen: list[str] = []
    driver.loop.set_exception_handler(lambda loop, context: seen.append(str(context["exception"])))
    ran: list[str] = []

    def fails() -> None:
        raise ValueError("broken callback")

    driver.batches.call_soon(fails)
    driver.batches.call_soon(ran.append, "after")
    driver.run_all()
    assert seen == ["broken callback"] and ran == ["after"]


def test_a_drain_left_midway_leaves_the_rest_to_the_next(driver: Driver) -> None:
    """As when a callback's blocking call suspends the drain (JSPI), or something escapes it:
    the callbacks behind it do not wait for it."""
    ran: list[str] = []

    def escapes() -> None:
        raise KeyboardInterrupt

    driver.batches.call_soon(ran.append, "a")
    driver.batches.call_soon(escapes)
    driver.batches.call_soon(ran.append, "c")
    with pytest.raises(KeyboardInterrupt):
        driver.run_next()
    assert ran == ["a"] and len(driver.entries) == 1
    driver.run_all()
    assert ran == ["a", "c"]


def test_system_exit_goes_to_the_loops_handler_when_it_has_one(driver: Driver) -> None:
    codes: list[object] = []
    driver.loop._system_exit_handler = codes.append  # as Pyodide's WebLoop holds it
    ran: list[str] = []

    def exits() -> None:
        raise SystemExit(3)

    driver.batches.call_soon(exits)
    driver.batches.call_soon(ran.append, "after")
    driver.run_all()
    assert codes == [3] and ran == ["after"]
