# For a lent GPU machine (README, "A 1080p job on an H100 host"), which has PyTorch and onnxruntime
# without its CUDA provider, and no Node or ffmpeg: runs the engine's PP-OCRv4 detector (the ONNX file
# models/models.json names, copied beside this script) on CUDA through a small interpreter of its ONNX
# graph in PyTorch, checks it against onnxruntime on the CPU, and times both at the engine's shapes
# (CUDA as a replayed CUDA graph: the interpreter's Python would otherwise be what is timed). Also
# times two fill-like kernels on a 1080p frame.
import os, time, json
import numpy as np, onnx, torch, torch.nn.functional as F
from onnx import numpy_helper
import onnxruntime as ort
here = os.environ.get("MODELS_DIR", os.path.dirname(os.path.abspath(__file__)))
path = os.path.join(here, "ch_PP-OCRv4_det_infer.onnx")
model = onnx.load(path)
g = model.graph
dev = torch.device("cuda")
init = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy()) for t in g.initializer}
def attrs(n): return {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
print("ops", sorted({n.op_type for n in g.node}), flush=True)
# Constants made once, on the host too (Resize reads its scales there: no sync inside a CUDA graph).
host = {n.output[0]: torch.from_numpy(numpy_helper.to_array(attrs(n)["value"]).copy()) for n in g.node if n.op_type == "Constant"}
host.update(init)
on_device = {}
def weights(dtype):
    if dtype not in on_device:
        on_device[dtype] = {k: t.to(dev, dtype if t.is_floating_point() else t.dtype) for k, t in host.items()}
    return on_device[dtype]

def run(x, dtype):
    v = dict(weights(dtype))
    v[g.input[0].name] = x
    for n in g.node:
        a = attrs(n); i = [v[name] if name else None for name in n.input]; op = n.op_type
        if op == "Constant":
            continue
        elif op == "Conv":
            k = a.get("kernel_shape"); pads = a.get("pads", [0, 0, 0, 0])
            x0 = F.pad(i[0], (pads[1], pads[3], pads[0], pads[2])) if pads[0] != pads[2] or pads[1] != pads[3] else i[0]
            p = 0 if x0 is not i[0] else (pads[0], pads[1])
            out = F.conv2d(x0, i[1], i[2] if len(i) > 2 else None, a.get("strides", [1, 1]), p, a.get("dilations", [1, 1]), a.get("group", 1))
        elif op == "ConvTranspose":
            pads = a.get("pads", [0, 0, 0, 0])
            out = F.conv_transpose2d(i[0], i[1], i[2] if len(i) > 2 else None, a.get("strides", [1, 1]), (pads[0], pads[1]), a.get("output_padding", [0, 0]), a.get("group", 1), a.get("dilations", [1, 1]))
        elif op == "BatchNormalization":
            out = F.batch_norm(i[0], i[3], i[4], i[1], i[2], False, 0.0, a.get("epsilon", 1e-5))
        elif op == "Relu": out = F.relu(i[0])
        elif op == "Sigmoid": out = torch.sigmoid(i[0])
        elif op == "HardSigmoid": out = torch.clamp(i[0] * a.get("alpha", 0.2) + a.get("beta", 0.5), 0, 1)
        elif op == "Clip":
            lo = host[n.input[1]] if len(n.input) > 1 and n.input[1] else a.get("min"); hi = host[n.input[2]] if len(n.input) > 2 and n.input[2] else a.get("max")
            out = torch.clamp(i[0], float(lo) if lo is not None else None, float(hi) if hi is not None else None)
        elif op == "Add": out = i[0] + i[1]
        elif op == "Mul": out = i[0] * i[1]
        elif op == "Div": out = i[0] / i[1]
        elif op == "GlobalAveragePool": out = i[0].mean(dim=(2, 3), keepdim=True)
        elif op == "Concat": out = torch.cat(i, dim=a["axis"])
        elif op == "Resize":
            named = lambda k: host.get(n.input[k]) if len(n.input) > k and n.input[k] else None
            scales = named(2) if named(2) is not None and named(2).numel() else None
            sizes = named(3)
            mode = {"linear": "bilinear"}.get(a.get("mode", b"nearest").decode(), a.get("mode", b"nearest").decode())
            if sizes is not None: out = F.interpolate(i[0], size=[int(s) for s in sizes[2:].tolist()], mode=mode)
            else: out = F.interpolate(i[0], scale_factor=[float(s) for s in scales[2:].tolist()], mode=mode)
        else: raise RuntimeError(f"op {op} not handled")
        v[n.output[0]] = out
    return v[g.output[0].name]

SHAPES = [(1, 3, 384, 640), (4, 3, 384, 640), (1, 3, 640, 384), (1, 3, 1088, 1920)]
cpu = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
results = {}
for shape in SHAPES:
    x = np.random.rand(*shape).astype(np.float32)
    for _ in range(2): cpu.run(None, {g.input[0].name: x})
    s = time.perf_counter()
    for _ in range(5): cpu.run(None, {g.input[0].name: x})
    results[f"det onnxruntime cpu {shape}"] = ms = (time.perf_counter() - s) / 5 * 1000
    print(f"det onnxruntime cpu ({os.cpu_count()} cores) {shape} {ms:.2f} ms/call", flush=True)
x = np.random.rand(1, 3, 384, 640).astype(np.float32)
ref = cpu.run(None, {g.input[0].name: x})[0]
with torch.no_grad():
    got = run(torch.from_numpy(x).to(dev), torch.float32).float().cpu().numpy()
    print("max |torch cuda - onnxruntime cpu| =", float(np.abs(got - ref).max()), flush=True)
    for dtype in (torch.float32, torch.float16):
        for shape in SHAPES:
            t = torch.rand(*shape, device=dev, dtype=dtype)
            side = torch.cuda.Stream(); side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3): run(t, dtype)
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph): run(t, dtype)
            for _ in range(3): graph.replay()
            torch.cuda.synchronize(); s = time.perf_counter(); n = 50
            for _ in range(n): graph.replay()
            torch.cuda.synchronize(); ms = (time.perf_counter() - s) / n * 1000
            key = f"det cuda {str(dtype).split('.')[-1]} {shape}"; results[key] = ms
            print(key, f"{ms:.2f} ms/call", flush=True)
    # Fill-like kernels on a 1080p frame: warping by a homography (bilinear) and 200 Jacobi sweeps of
    # a Poisson solve over a 1920x270 caption band, the fill's heaviest loops on the CPU.
    frame = torch.rand(1, 3, 1080, 1920, device=dev)
    H = torch.tensor([[1.0, 0.01, 3.2], [-0.01, 1.0, -1.7], [0, 0, 1]], device=dev)
    ys, xs = torch.meshgrid(torch.arange(1080, device=dev, dtype=torch.float32), torch.arange(1920, device=dev, dtype=torch.float32), indexing="ij")
    def warp():
        p = torch.stack([xs, ys, torch.ones_like(xs)], -1) @ H.T
        grid = torch.stack([p[..., 0] / p[..., 2] / 959.5 - 1, p[..., 1] / p[..., 2] / 539.5 - 1], -1)[None]
        return F.grid_sample(frame, grid, align_corners=True)
    band = torch.rand(1, 3, 270, 1920, device=dev); rhs = torch.rand_like(band)
    k = torch.tensor([[0, 0.25, 0], [0.25, 0, 0.25], [0, 0.25, 0]], device=dev).view(1, 1, 3, 3).repeat(3, 1, 1, 1)
    def jacobi():
        u = band
        for _ in range(200): u = F.conv2d(F.pad(u, (1, 1, 1, 1), mode="replicate"), k, groups=3) - 0.25 * rhs
        return u
    for name, fn in (("warp 1080p frame", warp), ("poisson 200 sweeps 1920x270", jacobi)):
        for _ in range(3): fn()
        torch.cuda.synchronize(); s = time.perf_counter()
        for _ in range(20): fn()
        torch.cuda.synchronize(); ms = (time.perf_counter() - s) / 20 * 1000
        results[name] = ms; print(name, f"{ms:.3f} ms", flush=True)
out = os.environ.get("OUT")
if out: json.dump(results, open(os.path.join(out, "torch-times.json"), "w"), indent=1)
