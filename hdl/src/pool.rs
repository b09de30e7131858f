//! Buffer configuration shared by the modules that keep messages in fixed-size buffers
//! (thesis §3.3.2): up to four size classes of (bytes, count), carved out of one buffer
//! memory in order.

/// Maximum number of buffer size classes.
pub const MAX_CLASSES: usize = 4;

/// One buffer size class: `count` buffers of `bytes` bytes each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SizeClass {
    pub bytes: u32,
    pub count: u32,
}

/// Buffer configuration: up to [`MAX_CLASSES`] size classes, ascending by size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferConfig {
    pub classes: Vec<SizeClass>,
}

impl BufferConfig {
    /// Builds a configuration from `(bytes, count)` pairs.
    pub fn from_pairs(pairs: &[(u32, u32)]) -> Self {
        Self {
            classes: pairs
                .iter()
                .map(|&(bytes, count)| SizeClass { bytes, count })
                .collect(),
        }
    }

    /// 64-bit words in one buffer of class `c`.
    pub fn words(c: &SizeClass) -> u64 {
        (c.bytes as u64).div_ceil(8)
    }

    /// Word address of the first buffer of each class.
    pub fn bases(&self) -> Vec<u64> {
        let mut base = 0u64;
        self.classes
            .iter()
            .map(|c| {
                let b = base;
                base += Self::words(c) * c.count as u64;
                b
            })
            .collect()
    }

    /// Buffer words needed by all classes.
    pub fn total_words(&self) -> u64 {
        self.classes
            .iter()
            .map(|c| Self::words(c) * c.count as u64)
            .sum()
    }

    /// Bytes per buffer of class `i` (0 for a class that is not configured).
    pub fn bytes_of(&self, i: usize) -> u64 {
        self.classes.get(i).map(|c| c.bytes as u64).unwrap_or(0)
    }

    /// Words per buffer of class `i` (0 when not configured).
    pub fn words_of(&self, i: usize) -> u64 {
        self.classes.get(i).map(Self::words).unwrap_or(0)
    }

    /// Buffers in class `i` (0 when not configured).
    pub fn count_of(&self, i: usize) -> u64 {
        self.classes.get(i).map(|c| c.count as u64).unwrap_or(0)
    }

    /// First word of class `i` (0 when not configured).
    pub fn base_of(&self, i: usize) -> u64 {
        self.bases().get(i).copied().unwrap_or(0)
    }

    /// Buffers over all classes.
    pub fn total_buffers(&self) -> u64 {
        self.classes.iter().map(|c| c.count as u64).sum()
    }

    /// Checks the configuration for a block with `messages` ids, buffers of at most
    /// `max_bytes` and `2^buffer_word_bits` words of buffer memory.
    pub fn validate(
        &self,
        messages: usize,
        max_bytes: u64,
        buffer_word_bits: usize,
    ) -> Result<(), String> {
        if self.classes.is_empty() || self.classes.len() > MAX_CLASSES {
            return Err(format!(
                "{} size classes given; 1 to {MAX_CLASSES} are supported",
                self.classes.len()
            ));
        }
        for (i, c) in self.classes.iter().enumerate() {
            if c.bytes == 0 || c.bytes as u64 > max_bytes {
                return Err(format!(
                    "size class {i}: {} bytes; must be 1..={max_bytes}",
                    c.bytes
                ));
            }
            if c.count as usize > messages {
                return Err(format!(
                    "size class {i}: {} buffers; at most {messages} (one per message id) are usable",
                    c.count
                ));
            }
            if i > 0 && self.classes[i - 1].bytes >= c.bytes {
                return Err(format!(
                    "size classes must be strictly ascending by bytes ({} then {})",
                    self.classes[i - 1].bytes,
                    c.bytes
                ));
            }
        }
        let words = self.total_words();
        if words > 1u64 << buffer_word_bits {
            return Err(format!(
                "size classes need {words} buffer words; the block has 2^{buffer_word_bits} = {}",
                1u64 << buffer_word_bits
            ));
        }
        Ok(())
    }
}
