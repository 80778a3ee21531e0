"""The task graph of a config, with ``ftsim graph --stats``' figures."""
from __future__ import annotations

from ftsim import _ftsim
from ftsim._config import ConfigError, ConfigLike, apply_overrides, config_source


class Graph:
    """A task graph: ``name``, ``nodes`` (processes), ``stats`` (a dict: tasks, edges, handles,
    data_bytes, tasks_per_kernel, transfers, critical path, ...), ``tasks`` (a pandas DataFrame: name,
    kernel, node, priority, flops; index = task id) and ``edges`` (a DataFrame: source, target)."""

    def __init__(self, arrays: dict):
        self._arrays = arrays
        self.name: str = arrays["name"]
        self.nodes: int = arrays["nodes"]
        self.stats: dict = arrays["stats"]

    @property
    def tasks(self):
        import pandas as pd

        kernels = self._arrays["kernels"]
        return pd.DataFrame({
            "name": self._arrays["task_names"],
            "kernel": [kernels[k] for k in self._arrays["task_kernel"]],
            "node": self._arrays["task_node"],
            "priority": self._arrays["task_priority"],
            "flops": self._arrays["task_flops"],
        })

    @property
    def edges(self):
        import pandas as pd

        return pd.DataFrame({"source": self._arrays["edge_from"], "target": self._arrays["edge_to"]})

    def to_networkx(self):
        """A networkx.DiGraph: one vertex per task id with its attributes, one arc per dependency."""
        import networkx as nx

        g = nx.DiGraph(name=self.name)
        kernels = self._arrays["kernels"]
        for t, (name, kernel, node, priority, flops) in enumerate(zip(
                self._arrays["task_names"], self._arrays["task_kernel"], self._arrays["task_node"],
                self._arrays["task_priority"], self._arrays["task_flops"])):
            g.add_node(t, name=name, kernel=kernels[kernel], node=int(node), priority=int(priority), flops=float(flops))
        g.add_edges_from(zip(self._arrays["edge_from"].tolist(), self._arrays["edge_to"].tolist()))
        return g

    def __repr__(self) -> str:
        return f"<ftsim.Graph {self.name!r}: {self.stats['tasks']} tasks, {self.stats['edges']} edges, {self.nodes} nodes>"


def graph(config: ConfigLike, **overrides) -> Graph:
    """Builds the task graph of ``config`` (no simulation)."""
    config = apply_overrides(config, overrides)
    text, origin, is_file = config_source(config)
    with ConfigError.translated(config):
        return Graph(_ftsim.graph(text, origin, is_file))
