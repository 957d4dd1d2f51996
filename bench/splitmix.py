"""bench/splitmix.py — examples/base/data/shuffle.h in Python, bit for bit: the SplitMix64
generator, derive_seed and the Fisher-Yates shuffle the programs use for their data splits, batch
orders and BERT's masking, so that a PyTorch side of a benchmark (gpt_vs_torch.py,
bert_vs_torch.py) sees exactly the data atencion saw."""

MASK64 = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, bound):
        """Uniform in [0, bound), by Lemire's multiply-and-reject (shuffle.cpp)."""
        threshold = ((1 << 64) - bound) % bound  # 2^64 mod bound: C++'s (0 - bound) % bound
        while True:
            product = self.next() * bound
            if product & MASK64 >= threshold:
                return product >> 64

    def uniform(self):
        """Uniform in [0, 1) from the top 53 bits."""
        return (self.next() >> 11) * 2.0 ** -53


def derive_seed(seed, stream):
    return SplitMix64(seed ^ ((stream * 0xD1B54A32D192ED03) & MASK64)).next()


def shuffle(items, generator):
    """Fisher-Yates from the back, in place."""
    for i in range(len(items), 1, -1):
        j = generator.below(i)
        items[i - 1], items[j] = items[j], items[i - 1]
