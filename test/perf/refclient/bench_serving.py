"""SGLang's bench_serving, its client half: the reference for the load
generator's CPU per output token in test/perf/bench (BenchmarkClientScale,
"bs-" figures).

The request function, its session and its records are SGLang's own, copied
unchanged from python/sglang/benchmark/serving.py at froststeam/sglang main
382343f86 (lines 71-81, 84-121 and 657-782; TestBenchServingCopy checks the
copy against a git directory of SGLang's source when SGLAUNCH_SGLANG_GIT is
set). The driver around it is bench_serving's benchmark() cut to what the
measurement needs: every request at once (request rate inf) under its
semaphore (--max-concurrency), no warm-up, no progress bar, no metrics but
the three printed. It needs aiohttp (Debian's python3-aiohttp, for
/usr/bin/python3), and orjson where installed; where not (Debian has no
package), json stands in for it, which costs more per event than orjson:
the benchmark reports this client's CPU with and without its JSON parsing,
so that a ratio against it can be taken at its most demanding.

    python3 bench_serving.py --url http://127.0.0.1:PORT --concurrency 256 \
        --rounds 2 --input-len 128 --output-len 128

It prints one JSON object: completed, failed, output_tokens,
median_ttft_ms, json_cpu_s (with --time-json: the CPU its JSON parsing
took, measured by a second pass over every event it parsed) and orjson
(whether orjson ran).
"""

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union

import aiohttp

try:
    import orjson as _json
    HAVE_ORJSON = True
except ImportError:  # Debian has no orjson: json parses the same events
    _json = json
    HAVE_ORJSON = False

PARSED = []  # with --time-json: every event parsed, timed again at the end


class orjson:  # noqa: N801 - what the copy calls
    @staticmethod
    def loads(b):
        if PARSED is not None:
            PARSED.append(b)
        return _json.loads(b)


tqdm = None
_ROUTING_KEY_HEADER = "X-Routing-Key"


def _get_bool_env_var(name: str, default: str = "false") -> bool:
    value = os.getenv(name, default)
    return value.lower() in ("true", "1")


def get_request_headers() -> Dict[str, str]:
    return {}


# --- copied from python/sglang/benchmark/serving.py@382343f86:71-81 ---
def _create_bench_client_session():
    # When the pressure is big, the read buffer could be full before aio thread read
    # the content. We increase the read_bufsize from 64K to 10M.
    # Define constants for timeout and buffer size for clarity and maintainability
    BENCH_AIOHTTP_TIMEOUT_SECONDS = 6 * 60 * 60  # 6 hours
    BENCH_AIOHTTP_READ_BUFSIZE_BYTES = 10 * 1024**2  # 10 MB

    aiohttp_timeout = aiohttp.ClientTimeout(total=BENCH_AIOHTTP_TIMEOUT_SECONDS)
    return aiohttp.ClientSession(
        timeout=aiohttp_timeout, read_bufsize=BENCH_AIOHTTP_READ_BUFSIZE_BYTES
    )
# --- end of copy ---


# --- copied from python/sglang/benchmark/serving.py@382343f86:84-121 ---
@dataclass
class RequestFuncInput:
    prompt: Union[str, List[str], List[Dict[str, str]]]
    api_url: str
    prompt_len: int
    output_len: int
    model: str
    lora_name: str
    image_data: Optional[List[str]]
    extra_request_body: Dict[str, Any]
    timestamp: Optional[float] = None
    routing_key: Optional[str] = None


@dataclass
class RequestFuncOutput:
    generated_text: str = ""
    success: bool = False
    latency: float = 0.0
    ttft: float = 0.0  # Time to first token
    itl: List[float] = field(default_factory=list)  # List of inter-token latencies
    text_chunks: List[str] = field(default_factory=list)
    prompt_len: int = 0
    error: str = ""
    output_len: int = 0
    start_time: float = 0.0
    cached_tokens: int = 0
    cached_tokens_details: Optional[Dict[str, Any]] = None
    spec_accept_length: float = 0.0
    spec_cap_length: float = 0.0
    spec_block_accept_length: float = 0.0
    spec_cap_lens_histogram: List[int] = field(default_factory=list)

    @staticmethod
    def init_new(request_func_input: RequestFuncInput):
        output = RequestFuncOutput()
        output.prompt_len = request_func_input.prompt_len
        return output
# --- end of copy ---


# --- copied from python/sglang/benchmark/serving.py@382343f86:657-782 ---
async def async_request_sglang_generate(
    request_func_input: RequestFuncInput,
    pbar: Optional[tqdm] = None,
) -> RequestFuncOutput:
    api_url = request_func_input.api_url
    prompt = request_func_input.prompt

    async with _create_bench_client_session() as session:
        sampling_params = {
            "temperature": args.temperature,
            "max_new_tokens": request_func_input.output_len,
            "ignore_eos": not args.disable_ignore_eos,
        }
        if args.top_p < 1.0:
            sampling_params["top_p"] = args.top_p
        payload = {
            ("text" if isinstance(prompt, str) else "input_ids"): prompt,
            "sampling_params": sampling_params,
            "stream": not args.disable_stream,
            "lora_path": request_func_input.lora_name,
            "return_logprob": args.return_logprob,
            "return_routed_experts": args.return_routed_experts,
            "logprob_start_len": args.logprob_start_len,
            **request_func_input.extra_request_body,
        }
        if args.top_logprobs_num > 0:
            payload["top_logprobs_num"] = args.top_logprobs_num
        if args.token_ids_logprob is not None:
            payload["token_ids_logprob"] = args.token_ids_logprob

        # Add image data if available (list of image urls/base64)
        if request_func_input.image_data:
            payload["image_data"] = request_func_input.image_data

        headers = get_request_headers()
        if request_func_input.routing_key:
            headers[_ROUTING_KEY_HEADER] = request_func_input.routing_key

        output = RequestFuncOutput.init_new(request_func_input)

        generated_text = ""
        output_len = request_func_input.output_len
        ttft = 0.0
        st = time.perf_counter()
        output.start_time = st
        most_recent_timestamp = st
        last_output_len = 0
        try:
            async with session.post(
                url=api_url, json=payload, headers=headers
            ) as response:
                if response.status == 200:
                    async for chunk_bytes in response.content:
                        chunk_bytes = chunk_bytes.strip()
                        if not chunk_bytes:
                            continue

                        # Cumulative chunks make parsing O(n^2) per request on this
                        # single asyncio thread; orjson on raw bytes is ~2.2x cheaper.
                        sse_data = (
                            chunk_bytes[6:]
                            if chunk_bytes.startswith(b"data: ")
                            else chunk_bytes
                        )
                        latency = time.perf_counter() - st
                        if sse_data == b"[DONE]":
                            pass
                        else:
                            data = orjson.loads(sse_data)

                            _meta_info = data.get("meta_info") or {}
                            if _meta_info.get("spec_accept_length") is not None:
                                output.spec_accept_length = _meta_info[
                                    "spec_accept_length"
                                ]

                            # NOTE: Some completion API might have a last
                            # usage summary response without a token so we
                            # want to check a token was generated
                            if getattr(args, "cache_report", False):
                                _meta = data.get("meta_info") or {}
                                output.cached_tokens = _meta.get("cached_tokens", 0)
                                output.cached_tokens_details = _meta.get(
                                    "cached_tokens_details"
                                )

                            if "text" in data and data["text"]:
                                timestamp = time.perf_counter()
                                generated_text = data["text"]
                                output_len = data["meta_info"]["completion_tokens"]

                                # First token
                                if ttft == 0.0:
                                    ttft = time.perf_counter() - st
                                    output.ttft = ttft

                                # Decoding phase
                                else:
                                    num_new_tokens = output_len - last_output_len
                                    if num_new_tokens == 0:
                                        continue
                                    chunk_gap = timestamp - most_recent_timestamp
                                    adjust_itl = chunk_gap / num_new_tokens
                                    output.itl.extend([adjust_itl] * num_new_tokens)

                                most_recent_timestamp = timestamp
                                last_output_len = output_len

                    output.generated_text = generated_text
                    output.success = True
                    output.latency = latency
                    output.output_len = output_len
                else:
                    output.error = (
                        (response.reason or "") + ": " + (await response.text())
                    )
                    output.success = False
        except Exception:
            output.success = False
            exc_info = sys.exc_info()
            output.error = "".join(traceback.format_exception(*exc_info))
            print(f"{output.error=}")

    if pbar:
        pbar.update(1)
    return output
# --- end of copy ---


async def main():
    global args
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--concurrency", type=int, default=1)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--input-len", type=int, default=128)
    p.add_argument("--output-len", type=int, default=128)
    p.add_argument("--time-json", action="store_true")
    cli = p.parse_args()
    global PARSED
    if not cli.time_json:
        PARSED = None
    # bench_serving's defaults for what the request function reads.
    args = argparse.Namespace(
        temperature=0.0, disable_ignore_eos=False, top_p=1.0, disable_stream=False,
        return_logprob=False, return_routed_experts=False, logprob_start_len=-1,
        top_logprobs_num=0, token_ids_logprob=None, header=None, cache_report=False)
    rng = random.Random(1)
    semaphore = asyncio.Semaphore(cli.concurrency)

    async def limited_request_func(request_func_input, pbar):
        async with semaphore:
            return await async_request_sglang_generate(request_func_input=request_func_input, pbar=pbar)

    tasks = []
    for _ in range(cli.concurrency * cli.rounds):
        prompt = [rng.randrange(100, 30000) for _ in range(cli.input_len)]
        request_func_input = RequestFuncInput(
            model="stub-model", prompt=prompt, api_url=cli.url.rstrip("/") + "/generate",
            prompt_len=cli.input_len, output_len=cli.output_len, lora_name=None,
            image_data=None, extra_request_body={})
        tasks.append(asyncio.create_task(limited_request_func(request_func_input=request_func_input, pbar=None)))
    outputs = await asyncio.gather(*tasks)
    ok = [o for o in outputs if o.success]
    ttfts = [o.ttft for o in ok if o.ttft > 0]
    json_cpu = 0.0
    if PARSED:
        t0 = time.process_time()
        for b in PARSED:
            _json.loads(b)
        json_cpu = time.process_time() - t0
    json.dump({"completed": len(ok), "failed": len(outputs) - len(ok),
               "output_tokens": sum(o.output_len for o in ok),
               "median_ttft_ms": statistics.median(ttfts) * 1000 if ttfts else 0,
               "json_cpu_s": json_cpu, "orjson": HAVE_ORJSON}, sys.stdout)
    print()


if __name__ == "__main__":
    asyncio.run(main())
