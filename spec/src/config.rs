//! A NIC's configuration as a TOML file, for replaying captured traffic into a configured
//! card (`rnic sim rx --config NIC.toml`): the port's addresses, the QPs (remote QPN, address,
//! path MTU, expected PSN) and the memory regions (key, IOVA, length, access).
//!
//! ```toml
//! [port]
//! mac = "02:00:00:00:00:02"
//! ipv4 = "192.0.2.2"
//! ipv6 = "2001:db8::2"
//! fcs = false                 # the capture's frames end with an FCS
//!
//! [[qp]]
//! qpn = 0x11                  # this card's QPN: 2 ... 255 (0 and 1 are IB's special QPs)
//! remote_qpn = 0x2a
//! remote_mac = "02:00:00:00:00:01"
//! remote_ip = "192.0.2.1"     # IPv4 or IPv6: the path's IP version
//! pmtu = 1024                 # 256, 512, 1024, 2048 or 4096
//! expected_psn = 0            # the first PSN the responder accepts
//! # optional: send_psn = 0, pd = 1, vlan = 100, pcp = 0, dscp = 0, ecn = 0, hop_limit = 64,
//! #           flow_label = 0, udp_src_port = 0xc000,
//! #           max_dest_rd_atomic = 8  (READs and atomics taken; 0 refuses them)
//!
//! [[mr]]
//! key = 0x1234                # rkey = lkey; its low 8 bits name the slot (1 ... 255)
//! iova = 0x10000000
//! length = 65536
//! access = ["remote_write"]   # local_write, remote_write, remote_read, remote_atomic
//! # optional: pd = 1
//!
//! [[recv]]                    # posted receive buffers, in order per QP (SEND, WRITE with immediate)
//! qpn = 0x11
//! addr = 0x20000000
//! length = 4096
//! lkey = 0x1234
//! ```
//!
//! Every error names the entry and field, what is wrong and what is allowed.

use crate::mr::{access, MemoryRegion};
use crate::qp::{PortAddress, QpContext, RemoteIp, PMTU_LOG2_MAX, PMTU_LOG2_MIN};
use crate::regs::{qp_state, MRS, QPS};
use crate::wire::eth::Vlan;
use serde::Deserialize;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NicConfig {
    pub port: PortConfig,
    #[serde(default)]
    pub qp: Vec<QpConfig>,
    #[serde(default)]
    pub mr: Vec<MrConfig>,
    #[serde(default)]
    pub recv: Vec<RecvConfig>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortConfig {
    pub mac: String,
    pub ipv4: Option<String>,
    pub ipv6: Option<String>,
    #[serde(default)]
    pub fcs: bool,
}

fn default_pd() -> u16 {
    1
}
fn default_hop_limit() -> u8 {
    64
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QpConfig {
    pub qpn: u32,
    pub remote_qpn: u32,
    pub remote_mac: String,
    pub remote_ip: String,
    pub pmtu: u32,
    pub expected_psn: u32,
    #[serde(default)]
    pub send_psn: u32,
    #[serde(default = "default_pd")]
    pub pd: u16,
    pub vlan: Option<u16>,
    #[serde(default)]
    pub pcp: u8,
    #[serde(default)]
    pub dscp: u8,
    #[serde(default)]
    pub ecn: u8,
    #[serde(default = "default_hop_limit")]
    pub hop_limit: u8,
    #[serde(default)]
    pub flow_label: u32,
    pub udp_src_port: Option<u16>,
    /// READ and atomic requests the QP takes (`max_dest_rd_atomic`, 0 ... 8; 0 refuses them).
    #[serde(default = "default_max_dest_rd_atomic")]
    pub max_dest_rd_atomic: u8,
}

fn default_max_dest_rd_atomic() -> u8 {
    crate::qp::RD_SLOTS
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MrConfig {
    pub key: u32,
    pub iova: u64,
    pub length: u32,
    pub access: Vec<String>,
    #[serde(default = "default_pd")]
    pub pd: u16,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecvConfig {
    pub qpn: u32,
    pub addr: u64,
    pub length: u32,
    pub lkey: u32,
}

/// A configuration error: where, and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

fn err<T>(msg: String) -> Result<T, ConfigError> {
    Err(ConfigError(msg))
}

/// A MAC address as `02:00:00:00:00:01`.
pub fn parse_mac(s: &str, what: &str) -> Result<[u8; 6], ConfigError> {
    let parts: Vec<&str> = s.split(':').collect();
    let mut mac = [0u8; 6];
    if parts.len() != 6 || parts.iter().zip(mac.iter_mut()).any(|(p, m)| u8::from_str_radix(p, 16).map(|v| *m = v).is_err() || p.len() != 2) {
        return err(format!("{what}: '{s}' is not a MAC address; write six hex bytes like 02:00:00:00:00:01"));
    }
    Ok(mac)
}

impl NicConfig {
    /// Parse and check a configuration file's text.
    pub fn parse(text: &str) -> Result<NicConfig, ConfigError> {
        let c: NicConfig = toml::from_str(text).map_err(|e| ConfigError(format!("config: {}", e.to_string().trim_end())))?;
        c.port()?;
        c.qps()?;
        c.regions()?;
        for (i, r) in c.recv.iter().enumerate() {
            if !c.qp.iter().any(|q| q.qpn == r.qpn) {
                return err(format!("recv[{i}].qpn: {:#x} is not one of the [[qp]] entries", r.qpn));
            }
        }
        Ok(c)
    }

    pub fn port(&self) -> Result<PortAddress, ConfigError> {
        let mac = parse_mac(&self.port.mac, "port.mac")?;
        let ipv4 = match &self.port.ipv4 {
            Some(s) => s.parse::<Ipv4Addr>().map_err(|_| ConfigError(format!("port.ipv4: '{s}' is not an IPv4 address")))?.octets(),
            None => [0; 4],
        };
        let ipv6 = match &self.port.ipv6 {
            Some(s) => s.parse::<Ipv6Addr>().map_err(|_| ConfigError(format!("port.ipv6: '{s}' is not an IPv6 address")))?.octets(),
            None => [0; 16],
        };
        if self.port.ipv4.is_none() && self.port.ipv6.is_none() {
            return err("port: give ipv4, ipv6 or both".into());
        }
        Ok(PortAddress { mac, ipv4, ipv6 })
    }

    /// The QPs as (QPN, context), every field checked.
    pub fn qps(&self) -> Result<Vec<(u32, QpContext)>, ConfigError> {
        let mut out: Vec<(u32, QpContext)> = Vec::new();
        for (i, q) in self.qp.iter().enumerate() {
            let at = |f: &str| format!("qp[{i}].{f}");
            if q.qpn < 2 || q.qpn >= QPS {
                return err(format!("{}: {:#x} is not a QPN of this card; use 2 ... {} (0 and 1 are InfiniBand's special QPs)", at("qpn"), q.qpn, QPS - 1));
            }
            if let Some((_, _)) = out.iter().find(|(n, _)| *n == q.qpn) {
                return err(format!("{}: {:#x} is configured twice", at("qpn"), q.qpn));
            }
            if q.remote_qpn > 0xFF_FFFF {
                return err(format!("{}: {:#x} is wider than 24 bits", at("remote_qpn"), q.remote_qpn));
            }
            let log = q.pmtu.trailing_zeros() as u8;
            if !q.pmtu.is_power_of_two() || !(PMTU_LOG2_MIN..=PMTU_LOG2_MAX).contains(&log) {
                return err(format!("{}: {} is not 256, 512, 1024, 2048 or 4096", at("pmtu"), q.pmtu));
            }
            for (name, v) in [("expected_psn", q.expected_psn), ("send_psn", q.send_psn)] {
                if v > 0xFF_FFFF {
                    return err(format!("{}: {v:#x} is wider than 24 bits", at(name)));
                }
            }
            let remote_ip = match q.remote_ip.parse::<IpAddr>() {
                Ok(IpAddr::V4(a)) => RemoteIp::V4(a.octets()),
                Ok(IpAddr::V6(a)) => RemoteIp::V6(a.octets()),
                Err(_) => return err(format!("{}: '{}' is not an IPv4 or IPv6 address", at("remote_ip"), q.remote_ip)),
            };
            if q.vlan.is_some_and(|v| v > 0xFFF) || q.pcp > 7 {
                return err(format!("{}: the VLAN ID is 12 bits and the PCP 3", at("vlan")));
            }
            if q.dscp > 63 || q.ecn > 3 || q.flow_label > 0xF_FFFF {
                return err(format!("{}: DSCP is 6 bits, ECN 2, the flow label 20", at("dscp")));
            }
            if q.max_dest_rd_atomic > crate::qp::RD_SLOTS {
                return err(format!("{}: {} is more than {}", at("max_dest_rd_atomic"), q.max_dest_rd_atomic, crate::qp::RD_SLOTS));
            }
            out.push((
                q.qpn,
                QpContext {
                    state: qp_state::RTS,
                    dest_qpn: q.remote_qpn,
                    dest_mac: parse_mac(&q.remote_mac, &at("remote_mac"))?,
                    remote_ip,
                    vlan: q.vlan.map(|vid| Vlan { pcp: q.pcp, dei: false, vid }),
                    dscp: q.dscp,
                    ecn: q.ecn,
                    ttl: q.hop_limit,
                    flow_label: q.flow_label,
                    udp_src_port: q.udp_src_port.unwrap_or(0xC000 | q.qpn as u16),
                    pkey: 0xFFFF,
                    pmtu_log2: log,
                    sq_psn: q.send_psn,
                    sq_base: 0,
                    sq_log_size: 0,
                    pd: q.pd,
                    rq_psn: q.expected_psn,
                    send_cq: 0,
                    // The rings are host memory the replaying driver sets up.
                    rq_base: 0,
                    rq_log_size: 0,
                    recv_cq: 0,
                    // A replayed capture is one direction: this card's own requests are none.
                    timeout: 0,
                    retry_cnt: 7,
                    rnr_retry: 7,
                    max_rd_atomic: crate::qp::RD_SLOTS,
                    max_dest_rd_atomic: q.max_dest_rd_atomic,
                },
            ));
        }
        Ok(out)
    }

    /// The memory regions, every key in its own slot.
    pub fn regions(&self) -> Result<Vec<MemoryRegion>, ConfigError> {
        let mut out: Vec<MemoryRegion> = Vec::new();
        for (i, m) in self.mr.iter().enumerate() {
            let slot = crate::mr::slot(m.key, MRS as usize);
            if slot == 0 {
                return err(format!("mr[{i}].key: {:#x} names slot 0, which is kept empty; use a key whose low 8 bits are 1 ... 255", m.key));
            }
            if let Some(j) = out.iter().position(|o| crate::mr::slot(o.key, MRS as usize) == slot) {
                return err(format!("mr[{i}].key: {:#x} names slot {slot}, already taken by mr[{j}]; keys need distinct low 8 bits", m.key));
            }
            if m.iova.checked_add(m.length as u64).is_none() {
                return err(format!("mr[{i}]: {} bytes at {:#x} wrap around", m.length, m.iova));
            }
            let mut flags = 0;
            for a in &m.access {
                flags |= match a.as_str() {
                    "local_write" => access::LOCAL_WRITE,
                    "remote_write" => access::REMOTE_WRITE,
                    "remote_read" => access::REMOTE_READ,
                    "remote_atomic" => access::REMOTE_ATOMIC,
                    other => {
                        return err(format!(
                            "mr[{i}].access: '{other}' is not an access flag; use local_write, remote_write, remote_read or remote_atomic"
                        ))
                    }
                };
            }
            out.push(MemoryRegion { key: m.key, base: m.iova, length: m.length, access: flags, pd: m.pd });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
[port]
mac = "02:00:00:00:00:02"
ipv4 = "192.0.2.2"
ipv6 = "2001:db8::2"

[[qp]]
qpn = 0x11
remote_qpn = 0x2a
remote_mac = "02:00:00:00:00:01"
remote_ip = "2001:db8::1"
pmtu = 4096
expected_psn = 0xfffffe
vlan = 100

[[mr]]
key = 0x1234
iova = 0x10000000
length = 65536
access = ["remote_write", "local_write"]
"#;

    #[test]
    fn parses_a_configuration() {
        let c = NicConfig::parse(GOOD).unwrap();
        assert_eq!(c.port().unwrap().ipv4, [192, 0, 2, 2]);
        let qps = c.qps().unwrap();
        assert_eq!(qps[0].0, 0x11);
        assert_eq!(qps[0].1.rq_psn, 0xFF_FFFE);
        assert!(matches!(qps[0].1.remote_ip, RemoteIp::V6(_)));
        assert_eq!(qps[0].1.vlan.unwrap().vid, 100);
        assert_eq!(qps[0].1.max_dest_rd_atomic, crate::qp::RD_SLOTS);
        let none = NicConfig::parse(&GOOD.replace("vlan = 100", "vlan = 100\nmax_dest_rd_atomic = 0")).unwrap();
        assert_eq!(none.qps().unwrap()[0].1.max_dest_rd_atomic, 0);
        let mrs = c.regions().unwrap();
        assert_eq!(mrs[0].access, access::REMOTE_WRITE | access::LOCAL_WRITE);
    }

    #[test]
    fn errors_name_the_field_and_the_fix() {
        let bad = |from: &str, to: &str| NicConfig::parse(&GOOD.replace(from, to)).unwrap_err().to_string();
        assert!(bad("qpn = 0x11", "qpn = 1").contains("qp[0].qpn: 0x1 is not a QPN of this card; use 2 ... 255"));
        assert!(bad("pmtu = 4096", "pmtu = 1500").contains("qp[0].pmtu: 1500 is not 256"));
        assert!(bad("\"2001:db8::1\"", "\"300.1.2.3\"").contains("qp[0].remote_ip: '300.1.2.3' is not an IPv4 or IPv6 address"));
        assert!(bad("key = 0x1234", "key = 0x1200").contains("slot 0"));
        assert!(bad("\"remote_write\", ", "\"remote_wrote\", ").contains("'remote_wrote' is not an access flag"));
        assert!(bad("02:00:00:00:00:01", "02:00:00:00:01").contains("qp[0].remote_mac"));
        assert!(bad("expected_psn", "expected_pns").contains("unknown field"), "{}", bad("expected_psn", "expected_pns"));
        assert!(bad("remote_qpn = 0x2a", "remote_qpn = 0x1000000").contains("wider than 24 bits"));
        assert!(bad("vlan = 100", "vlan = 100\nmax_dest_rd_atomic = 9").contains("qp[0].max_dest_rd_atomic: 9 is more than 8"));
    }
}
