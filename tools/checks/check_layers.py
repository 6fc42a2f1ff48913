#!/usr/bin/env python3
"""Checks the layer rules of docs/architecture.md on the sources (run by CTest as LayerRules).

1. A layer includes only headers of the layers before it (or its own).
2. The torch-free layers and headers reach no ATen/c10/torch header, directly or through other
   project headers: the CLI, the store, scoring, reports and scaling compile without LibTorch.
3. No file includes torch/torch.h (a translation unit with it takes ~15 s to compile here).
4. The build has the same graph (src/CMakeLists.txt): each pacer_layer's USES names only earlier
   layers, a torch-free layer is not marked TORCH and uses no layer that is, and every layer of
   LAYERS but python_bridge is declared.

Prints every violation as FILE:LINE: message and exits 1 if there is any.
"""
import pathlib
import re
import sys

LAYERS = ["core", "catalog", "runtime", "distributed", "data", "models", "workloads", "algorithms", "train", "store",
          "score", "tune", "run", "report", "scale", "probe", "analyze", "serve", "python_bridge"]
# What the light `pacer` links (apps/pacer/CMakeLists.txt): none of their sources reaches torch.
TORCH_FREE_LAYERS = {"core", "catalog", "store", "score", "tune", "report", "scale", "analyze", "serve"}
TORCH_FREE_HEADERS = {
    "workloads/registry.h", "algorithms/registry.h", "algorithms/runner_state.h", "algorithms/plugin_loader.h",
    "algorithms/python_submission_loader.h", "train/trial_writer.h",
    "train/stop_rule.h", "train/trial_observer.h", "train/eval_schedule.h", "train/noise_scale.h",
    "train/progress_observer.h", "train/trial_summary.h", "run/tuning_worker.h", "run/board_worker.h",
    "run/run_request.h", "run/target_setting_run.h", "run/racing.h",
    "probe/throughput_verdict.h", "probe/stability_verdict.h", "probe/memory_meter.h", "probe/throughput_probe.h",
    "probe/stability_probe.h", "probe/probe_page.h", "probe/probe_setup.h",
    "workloads/training_set_size.h", "distributed/rendezvous.h",
}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
TORCH = re.compile(r"^(ATen|c10|torch)/")


LAYER_CALL = re.compile(r"pacer_layer\((\w+)(.*?)\n\s*\)", re.S)


def cmake_problems(cmake):
    """The layers' CMake targets: (name, torch, uses) from each pacer_layer(...) call."""
    text = re.sub(r"#[^\n]*", "", cmake.read_text(encoding="utf-8"))
    declared = {}
    for m in LAYER_CALL.finditer(text):
        name, body = m.group(1), m.group(2)
        uses = re.search(r"\bUSES\b([^\n]*)", body)
        declared[name] = (bool(re.match(r"\s*TORCH\b", body)), uses.group(1).split() if uses else [])
    problems = []
    for name in LAYERS:
        if name != "python_bridge" and name not in declared:
            problems.append(f"src/CMakeLists.txt: layer '{name}' has no pacer_layer(...)")
    for name, (torch, uses) in declared.items():
        if name not in LAYERS:
            problems.append(f"src/CMakeLists.txt: pacer_layer({name}) is not a layer of tools/checks/check_layers.py")
            continue
        if name in TORCH_FREE_LAYERS and torch:
            problems.append(f"src/CMakeLists.txt: the torch-free layer '{name}' is marked TORCH")
        for used in uses:
            if used not in LAYERS or LAYERS.index(used) >= LAYERS.index(name):
                problems.append(f"src/CMakeLists.txt: layer '{name}' USES '{used}', which is not an earlier layer")
            elif name in TORCH_FREE_LAYERS and used not in TORCH_FREE_LAYERS:
                problems.append(f"src/CMakeLists.txt: the torch-free layer '{name}' USES the torch layer '{used}'")
    return problems


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2])
    src = root / "src"
    files = {p.relative_to(src).as_posix(): p for p in src.rglob("*") if p.suffix in (".h", ".cpp")}
    includes = {}
    for name, path in files.items():
        found = []
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = INCLUDE.match(line)
            if m:
                found.append((number, m.group(1), m.group(2)))
        includes[name] = found
    problems = []

    for name, found in includes.items():
        layer = name.split("/")[0]
        for number, _, header in found:
            if header == "torch/torch.h":
                problems.append(f"src/{name}:{number}: includes torch/torch.h; include the narrow headers")
            other = header.split("/")[0]
            if header in files and other in LAYERS and LAYERS.index(other) > LAYERS.index(layer):
                problems.append(f"src/{name}:{number}: layer '{layer}' includes '{header}' of the later layer '{other}'")

    torchy = {}  # header -> the chain that brings torch in, or None

    def torch_chain(name, seen=()):
        if name in torchy:
            return torchy[name]
        torchy[name] = None  # cycles (none expected) end here
        for _, _, header in includes.get(name, []):
            if TORCH.match(header):
                torchy[name] = [header]
                return torchy[name]
            if header in files and header not in seen:
                chain = torch_chain(header, seen + (name,))
                if chain:
                    torchy[name] = [header] + chain
                    return torchy[name]
        return None

    for name in sorted(files):
        must_be_free = name.split("/")[0] in TORCH_FREE_LAYERS or name in TORCH_FREE_HEADERS
        if must_be_free:
            chain = torch_chain(name)
            if chain:
                problems.append(f"src/{name}: must not reach torch, but does: " + " -> ".join(chain))

    problems += cmake_problems(src / "CMakeLists.txt")
    for p in problems:
        print(p)
    print(f"checked {len(files)} files: {len(problems)} violation(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
