//! The WRITE goodput benchmark's floor: 64 KiB messages at PMTU 4096 over the 100 Gb/s link
//! model reach at least 95 % of what the link allows, on one QP and on 16 (cycle counts from
//! the simulator; the README has the whole table from `rnic sim bench write`).

use rnic_driver::bench::write_goodput;

#[test]
fn writes_of_64_kib_reach_95_percent_of_the_link() {
    for qps in [1, 16] {
        let r = write_goodput(64 << 10, 4096, qps, 2 << 20).unwrap();
        assert!(r.fraction() >= 0.95, "{qps} QPs: {:.2} Gb/s is {:.1} % of {:.2}", r.gbps(), 100.0 * r.fraction(), r.limit_gbps());
        assert!(r.limit_gbps() > 97.0 && r.limit_gbps() < 100.0, "the link limit counts headers and gaps");
        assert_eq!(r.packets, r.messages * 16);
    }
}
