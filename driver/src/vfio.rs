//! The real card as a [`Bus`]: a PCI function bound to Linux's `vfio-pci`, through the
//! `pci-driver` crate. BAR0 is memory-mapped; DMA memory is anonymous host memory, page
//! aligned, mapped into the device's IOMMU domain at IOVAs this bus chooses (so the card sees
//! device addresses and the IOMMU keeps it inside them); bus mastering is switched on at open.
//!
//! All `unsafe` of the driver is here: the IOMMU mapping of host pages and the CPU's accesses
//! to them.

use crate::bus::{check_offset, Bus, BusError, IovaSpace};
use pci_driver::backends::vfio::VfioPciDevice;
use pci_driver::device::PciDevice;
use pci_driver::regions::{MappedOwningPciRegion, PciRegion, Permissions};
use std::path::PathBuf;

/// Where this bus starts handing out IOVAs (inside any IOMMU's valid ranges in practice; checked
/// against them at allocation).
const IOVA_BASE: u64 = 0x1_0000_0000;
const IOVA_SIZE: u64 = 1 << 40;

/// Why a card could not be opened through VFIO.
#[derive(Debug)]
pub enum VfioError {
    /// Not a PCI address of the form `0000:01:00.0`.
    BadAddress(String),
    /// No such PCI function.
    NoDevice(String),
    /// The function is bound to another driver (or none).
    NotVfio { address: String, driver: Option<String> },
    /// VFIO refused (permissions, IOMMU groups, ...).
    Open { address: String, err: std::io::Error },
    /// The function has no memory BAR0.
    NoBar0(String),
}

impl std::fmt::Display for VfioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VfioError::BadAddress(a) => write!(f, "'{a}' is not a PCI address; write domain:bus:device.function, e.g. 0000:01:00.0"),
            VfioError::NoDevice(a) => write!(f, "no PCI device {a} (see lspci -D for the cards present)"),
            VfioError::NotVfio { address, driver } => write!(
                f,
                "{address} is bound to {}, not vfio-pci: echo vfio-pci > /sys/bus/pci/devices/{address}/driver_override, \
                 then unbind it and echo {address} > /sys/bus/pci/drivers_probe",
                driver.as_deref().unwrap_or("no driver")
            ),
            VfioError::Open { address, err } => {
                write!(f, "cannot open {address} through VFIO: {err} (is the IOMMU on and /dev/vfio accessible?)")
            }
            VfioError::NoBar0(a) => write!(f, "{a} has no memory BAR0: this is not an rnic card"),
        }
    }
}

impl std::error::Error for VfioError {}

/// Check a PCI address (`dddd:bb:dd.f`) and return it in canonical lower case.
pub fn parse_address(address: &str) -> Result<String, VfioError> {
    let bad = || VfioError::BadAddress(address.to_string());
    let (domain, rest) = address.split_once(':').ok_or_else(bad)?;
    let (bus, rest) = rest.split_once(':').ok_or_else(bad)?;
    let (dev, func) = rest.split_once('.').ok_or_else(bad)?;
    let hex = |s: &str, len: usize, max: u32| s.len() == len && u32::from_str_radix(s, 16).is_ok_and(|v| v <= max);
    if !(hex(domain, 4, 0xFFFF) && hex(bus, 2, 0xFF) && hex(dev, 2, 0x1F) && hex(func, 1, 7)) {
        return Err(bad());
    }
    Ok(address.to_ascii_lowercase())
}

/// One DMA buffer: host pages and their IOMMU mapping.
struct DmaBuffer {
    iova: u64,
    ptr: *mut u8,
    len: usize,
}

pub struct VfioBus {
    device: VfioPciDevice,
    bar0: MappedOwningPciRegion,
    iova: IovaSpace,
    buffers: Vec<DmaBuffer>,
}

impl VfioBus {
    /// Open the card at PCI address `address` (bound to vfio-pci), map BAR0, enable DMA.
    pub fn open(address: &str) -> Result<VfioBus, VfioError> {
        let address = parse_address(address)?;
        let sysfs = PathBuf::from("/sys/bus/pci/devices").join(&address);
        if !sysfs.exists() {
            return Err(VfioError::NoDevice(address));
        }
        let driver = std::fs::read_link(sysfs.join("driver")).ok().and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
        if driver.as_deref() != Some("vfio-pci") {
            return Err(VfioError::NotVfio { address, driver });
        }
        let open = |err| VfioError::Open { address: address.clone(), err };
        let device = VfioPciDevice::open(&sysfs).map_err(open)?;
        let bar = device.bar(0).ok_or_else(|| VfioError::NoBar0(address.clone()))?;
        let bar0 = bar.map(.., Permissions::ReadWrite).map_err(open)?;
        device.config().command().bus_master_enable().write(true).map_err(open)?;
        Ok(VfioBus { device, bar0, iova: IovaSpace::new(IOVA_BASE, IOVA_SIZE), buffers: Vec::new() })
    }

    fn buffer(&self, iova: u64, len: usize) -> Result<(*mut u8, usize), BusError> {
        self.iova.check(iova, len)?;
        let b = self.buffers.iter().find(|b| iova >= b.iova && iova - b.iova + len as u64 <= b.len as u64).ok_or(BusError::NotDmaMemory { iova, len })?;
        Ok((b.ptr, (iova - b.iova) as usize))
    }
}

impl Bus for VfioBus {
    fn read32(&mut self, offset: u32) -> Result<u32, BusError> {
        check_offset(offset)?;
        self.bar0.read_le_u32(offset as u64).map_err(|_| BusError::Timeout { offset, write: false })
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), BusError> {
        check_offset(offset)?;
        self.bar0.write_le_u32(offset as u64, value).map_err(|_| BusError::Timeout { offset, write: true })
    }

    fn dma_alloc(&mut self, len: usize, align: usize) -> Result<u64, BusError> {
        let no = BusError::NoDmaMemory { len, align };
        let iommu = self.device.iommu();
        let page = iommu.alignment().max(4096);
        let size = len.checked_next_multiple_of(page).ok_or(no.clone())?;
        let iova = self.iova.alloc(size, page.min(4096))?;
        if !iommu.valid_iova_ranges().iter().any(|r| r.start <= iova && iova + size as u64 <= r.end) {
            self.iova.free(iova)?;
            return Err(no);
        }
        // SAFETY: an anonymous private mapping of `size` bytes; no other memory is touched and
        // the result is checked before use.
        let ptr = unsafe {
            libc::mmap(std::ptr::null_mut(), size, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_POPULATE, -1, 0)
        };
        if ptr == libc::MAP_FAILED {
            self.iova.free(iova)?;
            return Err(no);
        }
        // SAFETY: `ptr` is a live, page-aligned mapping of `size` bytes owned by this bus until
        // `dma_free` or Drop, which unmap it from the IOMMU before releasing it, so the device
        // never reaches memory the process has given back.
        let mapped = unsafe { iommu.map(iova, size, ptr as *const u8, Permissions::ReadWrite) };
        if mapped.is_err() {
            // SAFETY: the mapping made above, not shared with anyone.
            unsafe { libc::munmap(ptr, size) };
            self.iova.free(iova)?;
            return Err(no);
        }
        self.buffers.push(DmaBuffer { iova, ptr: ptr as *mut u8, len: size });
        Ok(iova)
    }

    fn dma_free(&mut self, iova: u64) -> Result<(), BusError> {
        let at = self.buffers.iter().position(|b| b.iova == iova).ok_or(BusError::NotAllocated(iova))?;
        let (ptr, len) = (self.buffers[at].ptr, self.buffers[at].len);
        // Out of the IOMMU first: the card must not reach memory the process gives back. If
        // the IOMMU refuses, the buffer stays allocated.
        self.device.iommu().unmap(iova, len).map_err(|_| BusError::Unmap(iova))?;
        self.buffers.remove(at);
        self.iova.free(iova)?;
        // SAFETY: the buffer's own mapping, no longer in the IOMMU nor in `buffers`.
        unsafe { libc::munmap(ptr as *mut libc::c_void, len) };
        Ok(())
    }

    fn dma_write(&mut self, iova: u64, data: &[u8]) -> Result<(), BusError> {
        let (ptr, at) = self.buffer(iova, data.len())?;
        // SAFETY: `buffer` checked that [at, at + len) lies inside one live mapping; volatile
        // writes because the device reads this memory behind the compiler's back.
        unsafe {
            for (i, b) in data.iter().enumerate() {
                std::ptr::write_volatile(ptr.add(at + i), *b);
            }
        }
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        Ok(())
    }

    fn dma_read(&mut self, iova: u64, len: usize) -> Result<Vec<u8>, BusError> {
        let (ptr, at) = self.buffer(iova, len)?;
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        // SAFETY: as in `dma_write`: inside one live mapping; volatile because the device
        // writes this memory.
        Ok((0..len).map(|i| unsafe { std::ptr::read_volatile(ptr.add(at + i)) }).collect())
    }

    fn wait(&mut self, cycles: u64) {
        // 250 MHz: 4 ns a cycle.
        std::thread::sleep(std::time::Duration::from_nanos(cycles * 4));
    }
}

impl Drop for VfioBus {
    fn drop(&mut self) {
        let iommu = self.device.iommu();
        for b in &self.buffers {
            let _ = iommu.unmap(b.iova, b.len);
            // SAFETY: the buffer's own mapping, already out of the IOMMU.
            unsafe { libc::munmap(b.ptr as *mut libc::c_void, b.len) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pci_addresses_are_checked() {
        assert_eq!(parse_address("0000:3B:00.1").unwrap(), "0000:3b:00.1");
        for bad in ["3b:00.0", "0000:3b:00", "0000:3b:20.0", "0000:3b:00.8", "00000:3b:00.0", "zzzz:00:00.0", ""] {
            assert!(matches!(parse_address(bad), Err(VfioError::BadAddress(_))), "{bad}");
        }
        let e = parse_address("01:00.0").unwrap_err().to_string();
        assert!(e.contains("e.g. 0000:01:00.0"), "{e}");
    }

    #[test]
    fn opening_a_missing_device_says_so() {
        // This machine has no such function; the error names it and where to look.
        let e = VfioBus::open("0000:ff:1f.7").err().unwrap();
        assert!(matches!(e, VfioError::NoDevice(_) | VfioError::NotVfio { .. }), "{e}");
        assert!(e.to_string().contains("0000:ff:1f.7"));
    }
}
