"""transformers ``generate`` with a static cache: the library compiles the model's ``__call__`` itself (a tiny
random-weight Llama, offline), and the user compiled the model's forward first."""

# differential: kind=script timeout=600
import torch
from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM
from transformers.generation.configuration_utils import CompileConfig

torch.manual_seed(0)
config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                     num_key_value_heads=2, max_position_embeddings=64)
model = LlamaForCausalLM(config).eval()
model.forward = torch.compile(model.forward, backend="eager")
generation = GenerationConfig(max_new_tokens=6, do_sample=False, cache_implementation="static", pad_token_id=0,
                              compile_config=CompileConfig(backend="eager", fullgraph=False))
ids = torch.randint(1, 64, (1, 5))
for _ in range(2):
    out = model.generate(ids, generation_config=generation)
    print(out.tolist())
