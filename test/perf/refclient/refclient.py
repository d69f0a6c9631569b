"""A minimal streaming client shaped like SGLang's bench_serving.

The reference that sglaunch's load generator is measured against in
test/perf/bench (client CPU per token and memory per stream): the same
requests, one keep-alive connection per stream, and per event the work
bench_serving does (json.loads, a perf_counter stamp, the TTFT or an ITL
sample). Standard library only: bench_serving itself needs aiohttp and
SGLang, which the benchmark machines do not have.

    python3 refclient.py --url http://127.0.0.1:PORT --concurrency 256 \
        --rounds 2 --input-len 128 --output-len 128 [--api chat]

It prints one JSON object: completed, failed, output_tokens and
median_ttft_ms.
"""

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from urllib.parse import urlsplit


def payload(api, rng, input_len, output_len):
    if api == "chat":
        words = " ".join("w%d" % rng.randrange(1000) for _ in range(input_len))
        body = {"model": "stub-model", "messages": [{"role": "user", "content": words}],
                "max_tokens": output_len, "temperature": 0, "ignore_eos": True, "stream": True,
                "stream_options": {"include_usage": True, "continuous_usage_stats": True}}
        return "/v1/chat/completions", json.dumps(body).encode()
    body = {"input_ids": [rng.randrange(100, 30000) for _ in range(input_len)],
            "sampling_params": {"max_new_tokens": output_len, "ignore_eos": True, "temperature": 0},
            "stream": True}
    return "/generate", json.dumps(body).encode()


async def read_body(reader):
    """Yields the body's chunks (chunked transfer encoding or until EOF)."""
    status = await reader.readline()
    if not status.startswith(b"HTTP/1.1 200"):
        raise RuntimeError("status %r" % status)
    chunked, length = False, None
    while True:
        h = await reader.readline()
        if h in (b"\r\n", b""):
            break
        k, _, v = h.partition(b":")
        k = k.strip().lower()
        if k == b"transfer-encoding" and b"chunked" in v.lower():
            chunked = True
        elif k == b"content-length":
            length = int(v)
    if not chunked:
        yield await reader.readexactly(length or 0)
        return
    while True:
        size = int((await reader.readline()).split(b";")[0], 16)
        if size == 0:
            await reader.readline()
            return
        data = await reader.readexactly(size + 2)
        yield data[:-2]


async def one(reader, writer, host, path, body, api, ttfts):
    head = ("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
            "Accept: text/event-stream\r\nContent-Length: %d\r\n\r\n" % (path, host, len(body)))
    st = time.perf_counter()
    writer.write(head.encode() + body)
    await writer.drain()
    ttft, last, itl, tokens, buf, done = 0.0, st, [], 0, b"", False
    async for chunk in read_body(reader):
        buf += chunk
        while b"\n\n" in buf:
            event, buf = buf.split(b"\n\n", 1)
            if not event.startswith(b"data: "):
                continue
            data = event[6:]
            if data == b"[DONE]":
                done = True
                continue
            ts = time.perf_counter()
            obj = json.loads(data)
            if api == "chat":
                choices = obj.get("choices") or []
                text = choices and (choices[0].get("delta") or {}).get("content")
                usage = obj.get("usage")
                if usage:
                    tokens = usage.get("completion_tokens", tokens)
            else:
                text = obj.get("text")
                tokens = obj["meta_info"]["completion_tokens"]
            if text:
                if ttft == 0.0:
                    ttft = ts - st
                else:
                    itl.append(ts - last)
                last = ts
    if done and ttft:
        ttfts.append(ttft)
    return done, tokens


async def stream(url, args, rng, ttfts, counts):
    reader, writer = await asyncio.open_connection(url.hostname, url.port)
    for _ in range(args.rounds):
        path, body = payload(args.api, rng, args.input_len, args.output_len)
        ok, tokens = await one(reader, writer, url.netloc, path, body, args.api, ttfts)
        counts["completed" if ok else "failed"] += 1
        counts["output_tokens"] += tokens
    writer.close()


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--api", default="generate", choices=["generate", "chat"])
    p.add_argument("--concurrency", type=int, default=1)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--input-len", type=int, default=128)
    p.add_argument("--output-len", type=int, default=128)
    args = p.parse_args()
    url = urlsplit(args.url)
    rng = random.Random(1)
    ttfts, counts = [], {"completed": 0, "failed": 0, "output_tokens": 0}
    await asyncio.gather(*(stream(url, args, rng, ttfts, counts) for _ in range(args.concurrency)))
    counts["median_ttft_ms"] = statistics.median(ttfts) * 1000 if ttfts else 0
    json.dump(counts, sys.stdout)
    print()


if __name__ == "__main__":
    asyncio.run(main())
