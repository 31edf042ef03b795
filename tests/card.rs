//! The simulated card through the driver: BAR0 as the register map says, and counters read
//! over BAR0 that agree with the reference model after every committed vector went in.

use rnic_driver::bus::Bus;
use rnic_driver::device::Device;
use rnic_driver::sim_bus::SimCard;
use rnic_sim::nic::NicSim;
use rnic_spec::regs::{self, Access};
use rnic_spec::wire::rx::{classify, DropReason, RxConfig};

#[test]
fn bar0_holds_the_register_map() {
    let mut nic = SimCard::new(NicSim::new().unwrap());
    for (offset, value) in regs::reset_image() {
        assert_eq!(nic.read32(offset).unwrap(), value, "BAR0 {offset:#06x}");
    }
    // Undefined words read 0 and ignore writes; constants ignore writes.
    let defined: Vec<u32> = regs::reset_image().iter().map(|w| w.0).chain(regs::registers(Access::Status).iter().map(|r| r.0)).collect();
    for offset in [0x0FC, 0x12C, 0xB00, 0xFFC] {
        assert!(!defined.contains(&offset), "{offset:#x} is undefined");
        nic.write32(offset, 0xDEAD_BEEF).unwrap();
        assert_eq!(nic.read32(offset).unwrap(), 0, "BAR0 {offset:#06x}");
    }
    let magic = regs::addr("id", "magic").unwrap();
    nic.write32(magic, 0).unwrap();
    assert_eq!(nic.read32(magic).unwrap(), regs::MAGIC);
    // Control registers keep what is written.
    let control = regs::addr("port", "control").unwrap();
    for v in [0, 0xFFFF_FFFF, 0x1234_5678, regs::PORT_CONTROL_FCS] {
        nic.write32(control, v).unwrap();
        assert_eq!(nic.read32(control).unwrap(), v);
    }
    assert!(nic.read32(2).is_err(), "unaligned offsets are refused");
}

#[test]
fn counters_over_bar0_match_the_model() {
    let mut expected = [0u32; 17];
    let mut card = Device::open(SimCard::new(NicSim::new().unwrap())).unwrap();
    for fcs in [false, true] {
        card.set_soft_fcs(fcs).unwrap();
        for v in rnic_e2e::load().into_iter().filter(|v| v.fcs == fcs) {
            for f in &v.frames {
                let frame = rnic_spec::wire::as_on_wire(f, fcs);
                match classify(&frame, RxConfig { fcs }).verdict {
                    Ok(()) => expected[0] += 1,
                    Err(r) => expected[r.code() as usize] += 1,
                }
                card.bus().nic.receive(&frame);
            }
        }
    }
    card.bus().nic.idle(64);
    let stats = card.stats().unwrap();
    assert_eq!(stats.len(), regs::count(Access::Status));
    let get = |name: &str| stats.iter().find(|(b, n, _)| *b == "rx_counters" && *n == name).map(|s| s.2);
    assert_eq!(get("accepted"), Some(expected[0]));
    for r in DropReason::ALL {
        assert_eq!(get(r.name()), Some(expected[r.code() as usize]), "{}", r.name());
    }
    // The vectors exercise most reasons (every one the reference model can reach from them).
    assert!(expected[0] > 300 && expected.iter().filter(|&&n| n > 0).count() >= 12, "{expected:?}");
}
