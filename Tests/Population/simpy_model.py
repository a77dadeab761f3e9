#!/usr/bin/env python3
"""The cohort model cohort-v1 (docs/population.md) in SimPy: one process per subscriber.

The speed baseline for `simctl population` (Tests/Population/compare.sh) and a cross-check of its results. Rule
numbers (R1.1 ...) are the model's. Same options and JSON output names as `simctl population --format json`.
Time is a float number of days (R1.1); one random.Random(seed) for the whole run (R8.1), drawn in the order of R8.2.
"""
import argparse
import json
import random
import sys
import time

import simpy
from simpy.core import URGENT

ACTIVE, GRACE, RETRY, EXPIRED = range(4)
THRESHOLDS = (0.60, 0.75, 0.85, 0.93, 0.98)  # R2.2


def family_size(u):
    """R2.2: the number of thresholds that are <= u."""
    return sum(1 for t in THRESHOLDS if t <= u)


def recovery_delay(u):
    """R5.1: inversion of the piecewise-linear CDF; None = never recovers."""
    if u < 0.40:
        return 3 * u / 0.40
    if u < 0.75:
        return 3 + 13 * (u - 0.40) / 0.35
    if u < 0.90:
        return 16 + 12 * (u - 0.75) / 0.15
    if u < 0.95:
        return 28 + 32 * (u - 0.90) / 0.05
    return None


class UrgentTimeout(simpy.events.Event):
    """A timeout that runs before every normal event at its instant (R1.5: the month-end snapshot comes first)."""

    def __init__(self, env, delay):
        super().__init__(env)
        self._ok = True
        self._value = None
        env.schedule(self, URGENT, delay)


class Cohort:
    def __init__(self, env, n, months, horizon, churn, failure, grace, rng):
        self.env, self.n, self.months, self.horizon = env, n, months, horizon
        self.churn, self.failure, self.grace, self.rng = churn, failure, grace, rng
        self.state = [ACTIVE] * n
        self.joined = [False] * n
        self.paying, self.in_grace, self.in_retry = n, 0, 0
        self.paying_month_end = [0] * months
        self.renewals = self.billing_failures = 0
        self.recovered_in_grace = self.recovered_after_grace = 0
        self.involuntary_expirations = self.voluntary_expirations = 0
        self.closed = {"failures": 0, "recovered_in_grace": 0, "recovered_after_grace": 0, "expired": 0}
        self.paid = 0.0
        self.events = 0
        self.monitor_events = 0
        # R2.2, R8.2: the N family sizes first, in subscriber order.
        self.family = [family_size(rng.random()) for _ in range(n)]
        # R6.2: the initial purchase pays [0, 30) for everyone.
        self.paid = n * min(30.0, horizon)
        env.process(self.monitor())
        for i in range(n):
            env.process(self.subscriber(i))

    def monitor(self):
        """R7.1: paying subscribers at 30m, before any other event at 30m."""
        for m in range(1, self.months + 1):
            if 30 * m >= self.horizon:
                return
            yield UrgentTimeout(self.env, 30 * m - self.env.now)
            self.paying_month_end[m - 1] = self.paying
            self.monitor_events += 1

    def family_joins(self, i):
        """R2.3: the members gain access one hour after the purchase (one event per family)."""
        yield self.env.timeout(1 / 24)
        self.events += 1
        self.joined[i] = True

    def subscriber(self, i):
        env, rng, horizon, grace = self.env, self.rng, self.horizon, self.grace
        if self.family[i] >= 1:
            env.process(self.family_joins(i))
        renewal = 30.0  # R4.1
        while True:
            yield env.timeout(renewal - env.now)
            self.events += 1
            r = env.now
            if rng.random() < self.churn:  # R4.2 step 1
                self.state[i] = EXPIRED
                self.paying -= 1
                self.voluntary_expirations += 1
                return
            if rng.random() >= self.failure:  # R4.2 step 3
                self.renewals += 1
                self.paid += min(30.0, horizon - r)
                renewal = r + 30
                continue
            # R4.2 step 2, R5: billing failure at r.
            self.paying -= 1
            self.billing_failures += 1
            closed = r + 60 < horizon
            if closed:
                self.closed["failures"] += 1
            d = recovery_delay(rng.random())
            if grace > 0:
                self.state[i] = GRACE
                self.in_grace += 1
                if d is not None and d <= grace:  # R5.3
                    yield env.timeout(d)
                    self.events += 1
                    self.state[i] = ACTIVE
                    self.in_grace -= 1
                    self.paying += 1
                    self.recovered_in_grace += 1
                    if closed:
                        self.closed["recovered_in_grace"] += 1
                    self.paid += min(30.0, horizon - r)
                    renewal = r + 30
                    continue
                yield env.timeout(grace)  # grace ends (R5.4, R5.5)
                self.events += 1
                self.state[i] = RETRY
                self.in_grace -= 1
                self.in_retry += 1
            else:
                self.state[i] = RETRY  # R5.2
                self.in_retry += 1
            if d is None:  # R5.5
                yield env.timeout(r + 60 - env.now)
                self.events += 1
                self.state[i] = EXPIRED
                self.in_retry -= 1
                self.involuntary_expirations += 1
                self.closed["expired"] += 1
                return
            yield env.timeout(r + d - env.now)  # R5.4
            self.events += 1
            s = env.now
            self.state[i] = ACTIVE
            self.in_retry -= 1
            self.paying += 1
            self.recovered_after_grace += 1
            if closed:
                self.closed["recovered_after_grace"] += 1
            self.paid += min(30.0, horizon - s)
            renewal = s + 30


def run(n, months, days, churn, failure, grace, seed):
    horizon = days if days is not None else max(365, 30 * months)
    start = time.perf_counter()
    env = simpy.Environment()
    model = Cohort(env, n, months, horizon, churn, failure, grace, random.Random(seed))
    loop_start = time.perf_counter()
    env.run(until=horizon)  # R1.3: events at instants >= H are not processed
    end = time.perf_counter()
    for m in range(1, months + 1):  # R7.1: when 30M = H the last snapshot is the end state
        if 30 * m >= horizon:
            model.paying_month_end[m - 1] = model.paying
            model.monitor_events += 1
    entitled = sum(
        1 + (model.family[i] if model.joined[i] else 0) for i in range(n) if model.state[i] in (ACTIVE, GRACE)
    )
    wall = end - start
    return {
        "model": "cohort-v1",
        "implementation": "python-simpy",
        "configuration": {"subscribers": n, "months": months, "days": horizon, "churn": churn,
                          "billing_failure": failure, "grace": grace, "seed": seed},
        "paying_month_end": model.paying_month_end,
        "entitled_people_end": entitled,
        "paying_end": model.paying,
        "in_grace_end": model.in_grace,
        "in_retry_end": model.in_retry,
        "renewals": model.renewals,
        "billing_failures": model.billing_failures,
        "recovered_in_grace": model.recovered_in_grace,
        "recovered_after_grace": model.recovered_after_grace,
        "involuntary_expirations": model.involuntary_expirations,
        "voluntary_expirations": model.voluntary_expirations,
        "family_members": sum(model.family),
        "closed_failures": model.closed,
        "paid_subscriber_days": model.paid,
        "events": model.events,
        "monitor_events": model.monitor_events,
        "wall_s": round(wall, 6),
        "run_s": round(end - loop_start, 6),
        "events_per_s": round(model.events / wall) if wall > 0 else 0,
    }


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subscribers", type=int, default=10000)
    parser.add_argument("--months", type=int, default=12)
    parser.add_argument("--days", type=float, default=None)
    parser.add_argument("--churn", type=float, default=0.05)
    parser.add_argument("--billing-failure", type=float, default=0.05)
    parser.add_argument("--grace", default="16", help="off, 0, 3, 16 or 28")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="accepted for symmetry; the output is always JSON")
    args = parser.parse_args(argv)
    grace = 0 if args.grace == "off" else int(args.grace)
    if grace not in (0, 3, 16, 28):
        parser.error("grace must be off (0), 3, 16 or 28 days (R5)")
    result = run(args.subscribers, args.months, args.days, args.churn, args.billing_failure, grace, args.seed)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
