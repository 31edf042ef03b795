//! CRC-32 (IEEE 802.3, reflected, polynomial 0x04C11DB7) and its two uses: the Ethernet FCS and
//! the RoCE v2 invariant CRC (ICRC, IBTA Annex A17.3.3).

/// Reflected CRC-32 polynomial.
pub const POLY_REFLECTED: u32 = 0xEDB8_8320;
/// Initial register value (and final XOR) of CRC-32.
pub const INIT: u32 = 0xFFFF_FFFF;
/// Register value after running CRC-32 over a message followed by its own little-endian CRC.
/// Hardware checks an FCS or ICRC by comparing against this instead of extracting the field.
pub const RESIDUE: u32 = 0xDEBB_20E3;

const TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { (c >> 1) ^ POLY_REFLECTED } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

/// Advance the raw CRC register (no initial value, no final XOR) over `bytes`.
pub fn crc32_update(mut reg: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        reg = (reg >> 8) ^ TABLE[((reg ^ b as u32) & 0xFF) as usize];
    }
    reg
}

/// The register value `r` such that `crc32_update(r, &[0; n]) == reg`. Zero bytes are an
/// invertible map on the register, so hardware can start a CRC `n` zeroed bytes before the
/// data it covers (e.g. skip an Ethernet header) from this rewound value.
pub fn crc32_rewind_zeros(mut reg: u32, n: usize) -> u32 {
    for _ in 0..n {
        // The table's top bytes are distinct, so the top byte names the index used.
        let x = TABLE.iter().position(|t| t >> 24 == reg >> 24).expect("CRC table top bytes are a permutation");
        reg = ((reg ^ TABLE[x]) << 8) | x as u32;
    }
    reg
}

/// CRC-32 as zlib and Ethernet define it.
pub fn crc32(bytes: &[u8]) -> u32 {
    crc32_update(INIT, bytes) ^ INIT
}

/// Ethernet FCS of a frame (destination MAC up to the end of the payload and padding).
/// Appended to the frame as `fcs(frame).to_le_bytes()`.
pub fn fcs(frame: &[u8]) -> u32 {
    crc32(frame)
}

/// Which IP version an ICRC is computed over (the masked fields differ).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IpVersion {
    V4,
    V6,
}

/// Invariant CRC of a RoCE v2 packet.
///
/// `ip_packet` runs from the first byte of the IP header to the last byte of payload and pad,
/// without the ICRC itself. The CRC runs over 8 bytes of 0xFF (standing in for the LRH) and then
/// the packet with every field that routers may change set to all ones: IPv4 TOS, TTL and header
/// checksum; IPv6 traffic class, flow label and hop limit; the UDP checksum; BTH byte 4 (FECN,
/// BECN, reserved). Appended to the packet as `icrc(..).to_le_bytes()`.
pub fn icrc(version: IpVersion, ip_packet: &[u8]) -> u32 {
    let mut masked = ip_packet.to_vec();
    icrc_mask(version, &mut masked);
    let reg = crc32_update(INIT, &[0xFF; 8]);
    crc32_update(reg, &masked) ^ INIT
}

/// Set the ICRC's variant fields of an IP packet to ones (in place; short packets are masked as
/// far as they go).
pub fn icrc_mask(version: IpVersion, p: &mut [u8]) {
    let (positions, ip_len): (&[usize], usize) = match version {
        IpVersion::V4 => (&[1, 8, 10, 11], 20),
        IpVersion::V6 => (&[1, 2, 3, 7], 40),
    };
    for &i in positions {
        if let Some(b) = p.get_mut(i) {
            *b = 0xFF;
        }
    }
    if version == IpVersion::V6 {
        if let Some(b) = p.get_mut(0) {
            *b |= 0x0F;
        }
    }
    for i in [ip_len + 6, ip_len + 7, ip_len + 8 + 4] {
        if let Some(b) = p.get_mut(i) {
            *b = 0xFF;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_check_value() {
        // The standard check value of CRC-32/ISO-HDLC.
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn rewind_undoes_zero_bytes() {
        for (reg, n) in [(INIT, 14usize), (0x1234_5678, 18), (0, 3), (0xDEAD_BEEF, 64)] {
            assert_eq!(crc32_update(crc32_rewind_zeros(reg, n), &vec![0; n]), reg);
        }
    }

    #[test]
    fn residue_after_appended_crc() {
        for len in [0usize, 1, 7, 64, 1000] {
            let msg: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            let mut framed = msg.clone();
            framed.extend_from_slice(&crc32(&msg).to_le_bytes());
            assert_eq!(crc32_update(INIT, &framed), RESIDUE, "len {len}");
        }
    }
}
