#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# The peer of measure_endpoint's client for bench/endpoint_client.sh: the same open-loop
# protocol (one connection a request, POST /v1/completions with stream=true, chunked SSE to
# "data: [DONE]") on Python's asyncio, the way vLLM's benchmark client (aiohttp on asyncio)
# drives a server. Prints its schedule lag (send - intended) at the 99th percentile.
#   asyncio_client.py PORT RATE REQUESTS
import asyncio
import json
import random
import sys
import time


async def one(port, intended, origin, lags, failures):
    now = time.perf_counter() - origin
    if intended > now:
        await asyncio.sleep(intended - now)
    sent = time.perf_counter() - origin
    lags.append(sent - intended)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        body = json.dumps({"model": "m", "prompt": " the" * 8, "max_tokens": 1, "stream": True,
                           "ignore_eos": True}).encode()
        writer.write(b"POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: application/json\r\nConnection: close\r\n"
                     b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        await writer.drain()
        data = await reader.read()
        writer.close()
        if b"data: [DONE]" not in data:
            failures[0] += 1
    except OSError:
        failures[0] += 1


async def main():
    port, rate, n = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(2024)
    t, times = 0.0, []
    for _ in range(n):
        t += rng.expovariate(rate)
        times.append(t)
    lags, failures = [], [0]
    origin = time.perf_counter()
    await asyncio.gather(*(one(port, x, origin, lags, failures) for x in times))
    lags.sort()
    print("lag_p99_ms %.2f failures %d" % (1000 * lags[int(0.99 * (len(lags) - 1))], failures[0]))


asyncio.run(main())
