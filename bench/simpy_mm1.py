#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The M/M/1 queue (lambda 0.8, mu 1, 200 000 requests) in SimPy, the peer that
bench/replica.bench.cpp's BM_replica_mm1_200k is compared with.

A source process sends 200 000 customers with exponential gaps (rate 0.8); each waits
for the single server (a Resource of capacity 1), holds it for an exponential time
(rate 1) and records its time in system. The mean time in system should be near
1 / (mu - lambda) = 5 s. Prints the median wall and CPU time of --repetitions runs and
the simulated requests per second of each (Google Benchmark's items_per_second is per
second of CPU time: compare it with the CPU figure on a shared machine).

Works with SimPy 3/4 (`import simpy`) and with SimPy 2 (`SimPy.Simulation`, Debian's
python3-simpy). Usage: python3 bench/simpy_mm1.py [--requests N] [--repetitions R]
"""

import argparse
import random
import statistics
import time

ARRIVAL_RATE = 0.8
SERVICE_RATE = 1.0


def run_simpy3(simpy, n, seed):
    rng = random.Random(seed)
    env = simpy.Environment()
    server = simpy.Resource(env, capacity=1)
    sojourn = []

    def customer():
        arrive = env.now
        with server.request() as req:
            yield req
            yield env.timeout(rng.expovariate(SERVICE_RATE))
        sojourn.append(env.now - arrive)

    def source():
        for _ in range(n):
            env.process(customer())
            yield env.timeout(rng.expovariate(ARRIVAL_RATE))

    env.process(source())
    env.run()
    return sojourn


def run_simpy2(n, seed):
    from SimPy.Simulation import (Process, Resource, activate, hold, initialize, now,
                                  release, request, simulate)

    rng = random.Random(seed)
    sojourn = []
    initialize()
    server = Resource(capacity=1)

    class Customer(Process):
        def visit(self):
            arrive = now()
            yield request, self, server
            yield hold, self, rng.expovariate(SERVICE_RATE)
            yield release, self, server
            sojourn.append(now() - arrive)

    class Source(Process):
        def generate(self):
            for _ in range(n):
                c = Customer()
                activate(c, c.visit())
                yield hold, self, rng.expovariate(ARRIVAL_RATE)

    s = Source()
    activate(s, s.generate())
    simulate(until=float("inf"))
    return sojourn


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200000)
    parser.add_argument("--repetitions", type=int, default=5)
    args = parser.parse_args()
    try:
        import simpy

        flavour = "SimPy " + getattr(simpy, "__version__", "3+")

        def once(seed):
            return run_simpy3(simpy, args.requests, seed)
    except ImportError:
        import SimPy

        flavour = "SimPy " + SimPy.__version__ + " (SimPy.Simulation)"

        def once(seed):
            return run_simpy2(args.requests, seed)

    times = []
    cpu_times = []
    mean = 0.0
    for r in range(args.repetitions):
        start = time.perf_counter()
        cpu_start = time.process_time()
        sojourn = once(r + 1)
        cpu_times.append(time.process_time() - cpu_start)
        times.append(time.perf_counter() - start)
        if len(sojourn) != args.requests:
            raise SystemExit(f"{len(sojourn)} of {args.requests} customers finished")
        mean = statistics.fmean(sojourn)
    median = statistics.median(times)
    cpu_median = statistics.median(cpu_times)
    print(f"{flavour}: M/M/1 lambda {ARRIVAL_RATE} mu {SERVICE_RATE}, {args.requests} requests")
    print(f"mean time in system {mean:.3f} s (1/(mu - lambda) = "
          f"{1.0 / (SERVICE_RATE - ARRIVAL_RATE):.3f} s)")
    print(f"median of {args.repetitions} runs: wall {median * 1e3:.1f} ms "
          f"({args.requests / median:,.0f} requests/s), CPU {cpu_median * 1e3:.1f} ms "
          f"({args.requests / cpu_median:,.0f} requests/s)")


if __name__ == "__main__":
    main()
