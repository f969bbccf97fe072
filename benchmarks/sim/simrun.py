"""One selfsched-sim run from the benchmark scripts: its makespan."""
import json
import os
import subprocess
import tempfile


def makespan(sim, arguments):
    """Runs `sim` with `arguments` (one configuration) and returns the simulated makespan in seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "run.json")
        subprocess.run([sim, "--json", path] + arguments, check=True, stdout=subprocess.DEVNULL)
        with open(path) as f:
            return json.load(f)[0]["makespan_s"]
