import jinja2
import torch


@torch.compile(backend="eager")
def render_scale(x):
    y = x * 2
    label = jinja2.Template("scale={{ s }}").render(s=2)
    return y + len(label)


print(render_scale(torch.ones(2)).tolist())
