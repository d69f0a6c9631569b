from prometheus_client import Gauge

app = None


@app.get("/health")
@app.get("/health_generate")
async def health():
    return None


@app.api_route("/flush_cache", methods=["GET", "POST"])
async def flush_cache():
    return None


running = Gauge(name="sglang:num_running_reqs", documentation="d", labelnames=["model_name", "tp_rank"])
