"""The adapters: what reaches the world behind the domain's ports (pytest on a scratch copy, the sandboxes,
the LanceDB memory, the code graph, the model, the safety checks, the run history). Beside the engines: they
import the domain and the kit only."""
