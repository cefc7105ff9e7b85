# For a lent GPU machine without Node (README, "Scaling and cost"): runs the fill's kernels as the
# engine builds them (gpu-worker/engine/kernels/; `npm run bench -- --kernels --write-graphs DIR`
# writes warp.onnx to DIR, then MODELS_DIR=DIR here) on CUDA through a small interpreter of their
# ONNX graphs in PyTorch, checks the result against onnxruntime on the CPU, and times both at the
# shapes bench/kernels.ts times on the CPU (CUDA as a replayed CUDA graph, so that the interpreter's
# Python is not what is timed).
import os, time, json
import numpy as np, onnx, torch
from onnx import numpy_helper
import onnxruntime as ort

here = os.environ.get("MODELS_DIR", os.path.dirname(os.path.abspath(__file__)))
path = os.path.join(here, "warp.onnx")
g = onnx.load(path).graph
dev = torch.device("cuda")
def attrs(n): return {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
ONNX_DTYPES = {1: torch.float32, 2: torch.uint8, 7: torch.int64, 9: torch.bool}
consts = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy()) for t in g.initializer}
print("ops", sorted({n.op_type for n in g.node}), flush=True)

# On the device once: a copy from the host inside a CUDA graph's capture is not allowed.
consts_on_device = {k: t.to(dev) for k, t in consts.items()}

def run(feeds):
    v = dict(consts_on_device)
    v.update(feeds)
    for n in g.node:
        a = attrs(n); i = [v[name] for name in n.input]; op = n.op_type
        if op in ("Add", "Sub", "Mul", "Div", "Min", "Max", "Equal", "And", "GreaterOrEqual", "LessOrEqual"):
            f = {"Add": torch.add, "Sub": torch.sub, "Mul": torch.mul, "Div": torch.div, "Min": torch.minimum,
                 "Max": torch.maximum, "Equal": torch.eq, "And": torch.logical_and, "GreaterOrEqual": torch.ge,
                 "LessOrEqual": torch.le}[op]
            out = f(i[0], i[1])
        elif op == "Gather":
            axis = a.get("axis", 0); idx = i[1]
            out = i[0].select(axis, int(consts[n.input[1]])) if idx.dim() == 0 else torch.index_select(i[0], axis, idx.reshape(-1)).reshape(*i[0].shape[:axis], *idx.shape, *i[0].shape[axis + 1:])
        elif op == "Slice":
            starts, ends, axes = (consts[name].tolist() for name in n.input[1:4]); out = i[0]
            for s, e, ax in zip(starts, ends, axes): out = out.narrow(ax, s, min(e, out.shape[ax]) - s)
        elif op == "Concat": out = torch.cat(i, dim=a["axis"])
        elif op == "MatMul": out = i[0] @ i[1]
        elif op == "Transpose": out = i[0].T
        elif op == "Where": out = torch.where(i[0], i[1], i[2])
        elif op == "Floor": out = torch.floor(i[0])
        elif op == "Abs": out = torch.abs(i[0])
        elif op == "Unsqueeze":
            out = i[0]
            for ax in sorted(consts[n.input[1]].tolist()): out = out.unsqueeze(ax)
        elif op == "Cast": out = i[0].to(ONNX_DTYPES[a["to"]])
        elif op == "ReduceSum": out = i[0].sum(dim=tuple(consts[n.input[1]].tolist()), keepdim=bool(a.get("keepdims", 1)))
        elif op == "ReduceMax": out = i[0].amax(dim=tuple(a["axes"]), keepdim=bool(a.get("keepdims", 1)))
        elif op == "Identity": out = i[0]
        else: raise RuntimeError(f"op {op} not handled")
        v[n.output[0]] = out
    return [v[o.name] for o in g.output]

# The shapes of bench/kernels.ts: one source frame, every pixel of a bottom band as a point.
CASES = [("720p, a 1280x120 band", 1280, 720, 120), ("1080p, a 1920x270 band", 1920, 1080, 270)]
motion = np.array([[1.004, 0.003, 2.6], [-0.002, 0.998, -1.3], [2e-6, -1e-6, 1]], np.float32)
cpu = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
results = {}
rng = np.random.default_rng(7)
for name, width, height, band in CASES:
    frame = rng.integers(0, 256, (width * height, 3), dtype=np.uint8)
    blocked = (rng.random(width * height) < 0.05).astype(np.uint8)
    ys, xs = np.mgrid[height - band:height, 0:width]
    points = np.stack([xs.ravel(), ys.ravel()], 1).astype(np.float32)
    offsets = (rng.random(points.shape, dtype=np.float32) - 0.5) * 1.6
    feeds = {"frame": frame, "blocked": blocked, "size": np.array([width, height], np.float32),
             "motion": motion, "points": points, "offsets": offsets}
    for _ in range(2): ref = cpu.run(None, feeds)
    s = time.perf_counter()
    for _ in range(5): cpu.run(None, feeds)
    results[f"warp onnxruntime cpu {name}"] = ms = (time.perf_counter() - s) / 5 * 1000
    print(f"warp onnxruntime cpu ({os.cpu_count()} cores) {name}: {ms:.2f} ms", flush=True)
    with torch.no_grad():
        on_device = {k: torch.from_numpy(x).to(dev) for k, x in feeds.items()}
        colour, valid = run(on_device)
        same = valid.cpu().numpy() == ref[1]
        both = same & ref[1]
        print(f"  valid agrees on {same.mean():.6f} of points; max |colour cuda - cpu| where both valid = "
              f"{float(np.abs(colour.cpu().numpy()[both] - ref[0][both]).max()):.4f}", flush=True)
        side = torch.cuda.Stream(); side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3): run(on_device)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph): run(on_device)
        for _ in range(3): graph.replay()
        torch.cuda.synchronize(); s = time.perf_counter(); n = 50
        for _ in range(n): graph.replay()
        torch.cuda.synchronize(); ms = (time.perf_counter() - s) / n * 1000
        results[f"warp cuda {name}"] = ms
        print(f"warp cuda {name}: {ms:.3f} ms", flush=True)
out = os.environ.get("OUT")
if out: json.dump(results, open(os.path.join(out, "fill-kernel-times.json"), "w"), indent=1)
