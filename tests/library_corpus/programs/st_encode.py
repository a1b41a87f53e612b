"""sentence-transformers encode: a model assembled from modules (a tiny BERT saved here with its tokenizer, then
mean pooling), its transformer compiled, sentences of varying length encoded in batches."""

import tempfile

import torch
from sentence_transformers import SentenceTransformer, models
from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.pre_tokenizers import Whitespace
from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

torch.manual_seed(0)
words = "the cat sat on a mat and dog ran far away".split()
vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, **{w: i + 4 for i, w in enumerate(words)}}
backend = Tokenizer(WordLevel(vocab, unk_token="[UNK]"))
backend.pre_tokenizer = Whitespace()
folder = tempfile.mkdtemp()
PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]",
                        sep_token="[SEP]").save_pretrained(folder)
BertModel(BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=64)).save_pretrained(folder)

word_embedding = models.Transformer(folder)
model = SentenceTransformer(modules=[word_embedding, models.Pooling(word_embedding.get_word_embedding_dimension())])
model[0].model = torch.compile(model[0].model, backend="aot_eager")  # the module's Hugging Face model
sentences = [" ".join(words[: 2 + i % 9]) for i in range(24)]
for _ in range(2):
    embeddings = model.encode(sentences, batch_size=4, convert_to_tensor=True)
print(tuple(embeddings.shape), f"{embeddings.abs().sum().item():.3f}")
