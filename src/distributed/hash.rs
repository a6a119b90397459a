//! A fixed, seedless hash of bytes: the same on every machine and in every run, so that
//! every process agrees on which worker owns a state, and on a run's fingerprint.

/// Multiplier of the mixing steps (the 64-bit golden ratio, odd).
const K: u64 = 0x9E37_79B9_7F4A_7C15;

/// Spreads every input bit over every output bit (the finaliser of SplitMix64).
fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The hash of `bytes`: eight bytes at a time (little-endian, the last word padded with
/// zeros), each mixed into the running value, the length mixed in last. Never seeded.
pub fn stable_hash(bytes: &[u8]) -> u64 {
    let mut h = K;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let w = u64::from_le_bytes(w.try_into().expect("eight bytes"));
        h = mix(h ^ w).wrapping_add(K);
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        h = mix(h ^ u64::from_le_bytes(last)).wrapping_add(K);
    }
    mix(h ^ bytes.len() as u64)
}

/// The worker, of `workers`, that owns a state whose key hashes to `hash`: the high half
/// of `hash * workers`, which spreads evenly without a division.
pub fn owner(hash: u64, workers: usize) -> usize {
    ((u128::from(hash) * workers as u128) >> 64) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_fixed() {
        // Pinned (computed apart from this code, from the definition above): the hash may
        // not drift with the platform or the toolchain.
        assert_eq!(stable_hash(b"grafter"), 0x29c1_bf57_8f36_45ff);
        let bytes: Vec<u8> = (0..20).collect();
        assert_eq!(stable_hash(&bytes), 0x28fc_38ee_0e0e_54c2);
        assert_ne!(stable_hash(b"grafter"), stable_hash(b"grafter\0"));
        assert_ne!(stable_hash(&[1, 0, 0, 0]), stable_hash(&[0, 1, 0, 0]));
    }

    #[test]
    fn owners_spread_evenly() {
        let workers = 6;
        let mut count = [0usize; 6];
        for i in 0u64..60_000 {
            count[owner(stable_hash(&i.to_le_bytes()), workers)] += 1;
        }
        for c in count {
            assert!((9_000..11_000).contains(&c), "{count:?}");
        }
    }
}
