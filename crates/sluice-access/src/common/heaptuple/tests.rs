//! Tests for forming and deforming: exact layouts for the cases that matter
//! (the seed row, the short/4-byte boundary, alignment), a randomised round trip,
//! and corrupt input that must come back as an error rather than a panic.

use super::*;
use crate::common::htup::*;

/// A tiny deterministic PRNG (xorshift64*), so failures reproduce exactly.
struct Rng(u64);

impl Rng {
    /// The next pseudo-random 64-bit value.
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n`.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// `n` pseudo-random bytes.
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// The seed-001 table: `(id bigint, name text, memo text)`.
fn seed_desc() -> TupleDesc {
    TupleDesc::new(vec![AttrDesc::INT8, AttrDesc::TEXT, AttrDesc::TEXT])
}

/// Borrows owned values as the `Option<&[u8]>` row `form_tuple` takes.
fn row(values: &[Option<Vec<u8>>]) -> Vec<Option<&[u8]>> {
    values.iter().map(|v| v.as_deref()).collect()
}

#[test]
fn seed_row_is_153_bytes_160_on_page() {
    let desc = seed_desc();
    let (id, name, memo) = (123456i64.to_le_bytes(), b"name-123456", [b'x'; 100]);
    let values = [Some(&id[..]), Some(&name[..]), Some(&memo[..])];
    let tuple = form_tuple(&desc, &values);
    assert_eq!(tuple.len(), 153);
    assert_eq!(compute_tuple_size(&desc, &values), 153);
    assert_eq!(maxalign(tuple.len()), 160);
    let h = HeapTupleHeader::new(&tuple[..]).unwrap();
    assert_eq!((h.natts(), h.hoff(), h.infomask()), (3, 32, HEAP_HASVARWIDTH));
    assert_eq!(&tuple[32..40], &id);
    assert_eq!(tuple[40], (12 << 1) | 1, "short header: total 12");
    assert_eq!(tuple[52], (101 << 1) | 1, "short header: total 101");
    assert_eq!(deform_tuple(&desc, &tuple).unwrap(), values);
}

#[test]
fn seed_rows_follow_the_size_formula() {
    let desc = seed_desc();
    let memo = [b'x'; 100];
    for i in [1i64, 9, 10, 99_999, 1_000_000] {
        let (id, name) = (i.to_le_bytes(), format!("name-{i}"));
        let values = [Some(&id[..]), Some(name.as_bytes()), Some(&memo[..])];
        let tuple = form_tuple(&desc, &values);
        assert_eq!(tuple.len(), 31 + 1 + 8 + (1 + name.len()) + (1 + 100));
        assert_eq!(deform_tuple(&desc, &tuple).unwrap(), values);
    }
}

#[test]
fn long_varlena_gets_aligned_4_byte_header() {
    let desc = TupleDesc::new(vec![AttrDesc::INT2, AttrDesc::TEXT]);
    let payload = [7u8; 200];
    let values = [Some(&[1u8, 0][..]), Some(&payload[..])];
    let tuple = form_tuple(&desc, &values);
    assert_eq!(&tuple[32..34], &[1, 0]);
    assert_eq!(&tuple[34..36], &[0, 0], "zero padding to the 4-byte boundary");
    assert_eq!(&tuple[36..40], &(204u32 << 2).to_le_bytes());
    assert_eq!(tuple.len(), 240);
    assert_eq!(deform_tuple(&desc, &tuple).unwrap(), values);
}

#[test]
fn short_header_boundary_is_126_byte_payload() {
    let desc = TupleDesc::new(vec![AttrDesc::BOOL, AttrDesc::TEXT]);
    for (len, header, pad) in [(0, 1, 0), (126, 1, 0), (127, 4, 3)] {
        let payload = vec![b'y'; len];
        let values = [Some(&[1u8][..]), Some(&payload[..])];
        let tuple = form_tuple(&desc, &values);
        assert_eq!(tuple.len(), 33 + pad + header + len, "payload {len}");
        assert_eq!(deform_tuple(&desc, &tuple).unwrap(), values);
    }
}

#[test]
fn mixed_types_are_aligned_like_postgres() {
    use AttrDesc as A;
    let desc = TupleDesc::new(vec![A::BOOL, A::INT8, A::INT2, A::TEXT, A::INT4, A::TEXT, A::INT8]);
    let long = [3u8; 130];
    let values: [Option<&[u8]>; 7] = [
        Some(&[1]),
        Some(&[2; 8]),
        Some(&[4; 2]),
        Some(b"ab"),
        Some(&[5; 4]),
        Some(&long),
        Some(&[6; 8]),
    ];
    let tuple = form_tuple(&desc, &values);
    // bool 32, int8 40..48, int2 48..50, short text 50..53, int4 56..60,
    // long text header 60..64 + 130 = 194, int8 aligned to 200..208.
    assert_eq!(tuple[32], 1);
    assert_eq!(&tuple[40..48], &[2; 8]);
    assert_eq!(&tuple[48..50], &[4; 2]);
    assert_eq!(&tuple[50..53], &[(3 << 1) | 1, b'a', b'b']);
    assert_eq!(&tuple[56..60], &[5; 4]);
    assert_eq!(&tuple[60..64], &(134u32 << 2).to_le_bytes());
    assert_eq!(&tuple[200..208], &[6; 8]);
    assert_eq!(tuple.len(), 208);
    assert_eq!(deform_tuple(&desc, &tuple).unwrap(), values);
    for (i, v) in values.iter().enumerate() {
        assert_eq!(get_attr(&desc, &tuple, i).unwrap(), *v);
    }
}

#[test]
fn every_null_pattern_round_trips() {
    use AttrDesc as A;
    let desc = TupleDesc::new(vec![
        A::INT4,
        A::TEXT,
        A::INT8,
        A::BOOL,
        A::INT2,
        A::TEXT,
        A::FLOAT8,
        A::DATE,
        A::TEXT,
        A::OID,
    ]);
    let full: Vec<Vec<u8>> = desc
        .attrs
        .iter()
        .enumerate()
        .map(|(i, a)| vec![i as u8 + 1; if a.is_varlena() { 3 * i } else { a.attlen as usize }])
        .collect();
    for mask in 0u32..1 << desc.natts() {
        let owned: Vec<_> = full
            .iter()
            .enumerate()
            .map(|(i, v)| (mask & (1 << i) == 0).then(|| v.clone()))
            .collect();
        let values = row(&owned);
        let tuple = form_tuple(&desc, &values);
        let h = HeapTupleHeader::new(&tuple[..]).unwrap();
        assert_eq!(h.has_nulls(), mask != 0);
        assert_eq!(h.hoff(), if mask != 0 { 40 } else { 32 }, "10 attrs need 2 bitmap bytes");
        for (i, value) in values.iter().enumerate() {
            assert_eq!(h.att_is_null(i), value.is_none());
        }
        assert_eq!(deform_tuple(&desc, &tuple).unwrap(), values, "mask {mask:#x}");
    }
}

#[test]
fn all_null_row_has_no_data() {
    let desc = seed_desc();
    let tuple = form_tuple(&desc, &[None, None, None]);
    assert_eq!(tuple.len(), 32);
    let h = HeapTupleHeader::new(&tuple[..]).unwrap();
    assert_eq!((h.infomask(), h.null_bitmap()), (HEAP_HASNULL, Some(&[0u8][..])));
    assert_eq!(deform_tuple(&desc, &tuple).unwrap(), vec![None, None, None]);
}

#[test]
fn columns_added_later_read_as_null() {
    let old = TupleDesc::new(vec![AttrDesc::INT4, AttrDesc::TEXT]);
    let tuple = form_tuple(&old, &[Some(&[1, 2, 3, 4]), Some(b"hi")]);
    let mut new = old.clone();
    new.attrs.extend([AttrDesc::INT8, AttrDesc::TEXT]);
    let values = deform_tuple(&new, &tuple).unwrap();
    assert_eq!(values, vec![Some(&[1u8, 2, 3, 4][..]), Some(b"hi"), None, None]);
    assert_eq!(get_attr(&new, &tuple, 3).unwrap(), None);
}

#[test]
fn columns_added_later_read_their_missing_value_and_stored_nulls_stay_null() {
    let old = TupleDesc::new(vec![AttrDesc::INT4, AttrDesc::TEXT]);
    let short = form_tuple(&old, &[Some(&[1, 2, 3, 4]), None]);
    let mut attrs = old.attrs.clone();
    attrs.extend([AttrDesc::INT4, AttrDesc::TEXT]);
    let missing = vec![None, Some(b"old".to_vec()), Some(vec![9, 0, 0, 0]), None];
    let new = TupleDesc::new(attrs).with_missing(missing);
    let values = deform_tuple(&new, &short).unwrap();
    // The stored NULL is NULL; the added columns read their missing values.
    assert_eq!(values, vec![Some(&[1u8, 2, 3, 4][..]), None, Some(&[9u8, 0, 0, 0][..]), None]);
    assert_eq!(get_attr(&new, &short, 2).unwrap(), Some(&[9u8, 0, 0, 0][..]));
    // A tuple written with every column ignores them.
    let full = form_tuple(&new, &[Some(&[1, 2, 3, 4]), None, Some(&[7, 0, 0, 0]), None]);
    assert_eq!(get_attr(&new, &full, 2).unwrap(), Some(&[7u8, 0, 0, 0][..]));
}

#[test]
fn random_rows_round_trip() {
    use AttrDesc as A;
    let types = [A::BOOL, A::INT2, A::INT4, A::INT8, A::TEXT, A::BYTEA, A::NAME, A::TID, A::UUID];
    let mut rng = Rng(0x5EED_0001);
    for _ in 0..3000 {
        let natts = 1 + rng.below(20);
        let desc = TupleDesc::new((0..natts).map(|_| types[rng.below(types.len())]).collect());
        let owned: Vec<Option<Vec<u8>>> = desc
            .attrs
            .iter()
            .map(|a| {
                let len = if a.is_varlena() { rng.below(300) } else { a.attlen as usize };
                (rng.below(4) != 0).then(|| rng.bytes(len))
            })
            .collect();
        let values = row(&owned);
        let tuple = form_tuple(&desc, &values);
        assert_eq!(tuple.len(), compute_tuple_size(&desc, &values));
        assert_eq!(deform_tuple(&desc, &tuple).unwrap(), values);
        let i = rng.below(natts);
        assert_eq!(get_attr(&desc, &tuple, i).unwrap(), values[i]);
        // Page padding after the tuple does not change what it says.
        let mut padded = tuple.clone();
        padded.resize(maxalign(tuple.len()), 0);
        assert_eq!(deform_tuple(&desc, &padded).unwrap(), values);
    }
}

#[test]
fn every_truncation_is_an_error() {
    use AttrDesc as A;
    let desc = TupleDesc::new(vec![A::INT8, A::TEXT, A::INT2, A::TEXT]);
    let long = [9u8; 150];
    let tuple = form_tuple(&desc, &[Some(&[1; 8]), None, Some(&[2; 2]), Some(&long)]);
    for len in 0..tuple.len() {
        assert!(deform_tuple(&desc, &tuple[..len]).is_err(), "prefix of {len} bytes");
    }
}

#[test]
fn garbage_never_panics() {
    use AttrDesc as A;
    let desc = TupleDesc::new(vec![A::INT4, A::TEXT, A::INT8, A::TEXT, A::BOOL, A::BYTEA]);
    let long = [1u8; 200];
    let values: [Option<&[u8]>; 6] =
        [Some(&[1; 4]), Some(b"abc"), None, Some(&long), Some(&[1]), Some(b"")];
    let good = form_tuple(&desc, &values);
    let mut rng = Rng(42);
    for _ in 0..20_000 {
        let bytes = if rng.below(2) == 0 {
            let mut bad = good.clone();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(bad.len());
                bad[at] = rng.next() as u8;
            }
            bad
        } else {
            let len = rng.below(300);
            let mut random = rng.bytes(len);
            if random.len() > 31 && rng.below(2) == 0 {
                random[26..28].copy_from_slice(&6u16.to_le_bytes()); // plausible natts
                random[30] = 32;
            }
            random
        };
        let _ = deform_tuple(&desc, &bytes);
        let _ = get_attr(&desc, &bytes, rng.below(desc.natts()));
    }
}

#[test]
fn unsupported_and_inconsistent_encodings_are_corrupt() {
    let desc = TupleDesc::new(vec![AttrDesc::BOOL, AttrDesc::TEXT]);
    let tuple = form_tuple(&desc, &[Some(&[1]), Some(&[b'z'; 200])]);
    let cases: [(usize, &[u8], &str); 6] = [
        (33, &[2], "nonzero padding"),
        (36, &[0x02, 0x03, 0, 0], "compressed"),
        (33, &[0x01], "external TOAST"),
        (36, &[0x0C, 0, 0, 0], "varlena length 3"),
        (36, &[0x00, 0x10, 0, 0], "past tuple end"),
        (30, &[40], "t_hoff"),
    ];
    for (at, bytes, what) in cases {
        let mut bad = tuple.clone();
        bad[at..at + bytes.len()].copy_from_slice(bytes);
        let err = deform_tuple(&desc, &bad).unwrap_err();
        assert_eq!(err.sqlstate(), "XX001");
        assert!(err.to_string().contains(what), "{what}: {err}");
    }
}

#[test]
fn too_big_rows_get_postgres_error() {
    assert!(check_tuple_size(MAX_HEAP_TUPLE_SIZE).is_ok());
    let err = check_tuple_size(MAX_HEAP_TUPLE_SIZE + 1).unwrap_err();
    assert_eq!(err.to_string(), "row is too big: size 8168, maximum size 8160");
    assert_eq!(err.sqlstate(), "54000");
}

#[test]
#[should_panic(expected = "attlen")]
fn wrong_fixed_width_is_a_caller_bug() {
    form_tuple(&TupleDesc::new(vec![AttrDesc::INT4]), &[Some(&[1, 2])]);
}
