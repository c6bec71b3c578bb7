//! A stopped tracee's memory, read with `process_vm_readv`: an array of pointers in one call, the
//! strings they point to in one more (each string's first chunk at once; a longer string goes on
//! page by page). Reads never cross a page boundary within one chunk, so an unmapped page fails
//! only the string that reaches into it, as the kernel's own read would. A new program's argv is
//! read with its strings in one call: they lie just above the pointers on its stack.

use std::io::IoSliceMut;

use nix::errno::Errno;
use nix::sys::uio::{RemoteIoVec, process_vm_readv};
use nix::unistd::Pid;

/// The most argument bytes read from an exec (the kernel's own limit is lower): beyond it the
/// exec fails with `E2BIG`.
pub(crate) const MAX_ARG_BYTES: usize = 8 << 20;
/// The most arguments (or environment entries) read.
const MAX_ARGS: usize = 1 << 20;
const PAGE: u64 = 4096;
/// The first chunk read of each string.
const FIRST_CHUNK: usize = 256;
/// The most ranges one `process_vm_readv` takes (`IOV_MAX`).
const MAX_RANGES: usize = 1024;

/// How many bytes from `addr` to read at most `max`, without crossing a page boundary.
fn to_page_end(addr: u64, max: usize) -> usize {
    max.min((PAGE - addr % PAGE) as usize)
}

/// Reads the remote `ranges` (address, length) into `buf`, back to back; returns how many of them
/// were read whole (a failing range ends the read there).
fn read_ranges(pid: Pid, ranges: &[(u64, usize)], buf: &mut Vec<u8>) -> usize {
    let mut done = 0;
    buf.clear();
    buf.resize(ranges.iter().map(|r| r.1).sum(), 0);
    let mut at = 0;
    for batch in ranges.chunks(MAX_RANGES) {
        let len: usize = batch.iter().map(|r| r.1).sum();
        let remote: Vec<RemoteIoVec> =
            batch.iter().map(|&(base, len)| RemoteIoVec { base: base as usize, len }).collect();
        let read = process_vm_readv(pid, &mut [IoSliceMut::new(&mut buf[at..at + len])], &remote).unwrap_or(0);
        let mut whole = 0;
        let mut sum = 0;
        for r in batch {
            if sum + r.1 > read {
                break;
            }
            sum += r.1;
            whole += 1;
        }
        done += whole;
        if whole < batch.len() {
            break;
        }
        at += len;
    }
    done
}

/// The pointers of the NULL-terminated array at `addr` (NULL itself: none).
pub(crate) fn pointers(pid: Pid, addr: u64) -> Result<Vec<u64>, Errno> {
    let mut out = Vec::new();
    if addr == 0 {
        return Ok(out);
    }
    let mut at = addr;
    let mut buf = Vec::new();
    loop {
        let len = to_page_end(at, PAGE as usize) & !7;
        let len = if len == 0 { 8 } else { len };
        if read_ranges(pid, &[(at, len)], &mut buf) != 1 {
            return Err(Errno::EFAULT);
        }
        for word in buf.chunks_exact(8) {
            let ptr = u64::from_ne_bytes(word.try_into().unwrap_or_default());
            if ptr == 0 {
                return Ok(out);
            }
            if out.len() >= MAX_ARGS {
                return Err(Errno::E2BIG);
            }
            out.push(ptr);
        }
        at += len as u64;
    }
}

/// The NUL-terminated strings at `addrs` (lossy UTF-8), within `budget` bytes in all.
pub(crate) fn strings(pid: Pid, addrs: &[u64], budget: &mut usize) -> Result<Vec<String>, Errno> {
    if addrs.contains(&0) {
        return Err(Errno::EFAULT);
    }
    let ranges: Vec<(u64, usize)> = addrs.iter().map(|&a| (a, to_page_end(a, FIRST_CHUNK))).collect();
    let mut buf = Vec::new();
    let whole = read_ranges(pid, &ranges, &mut buf);
    let mut out = Vec::with_capacity(addrs.len());
    let mut at = 0;
    for (i, &(addr, len)) in ranges.iter().enumerate() {
        let bytes = if i < whole { Some(&buf[at..at + len]) } else { None };
        at += len;
        let string = match bytes.and_then(|b| b.iter().position(|c| *c == 0).map(|end| &b[..end])) {
            Some(s) => s.to_vec(),
            // Longer than the first chunk, or not read with the others: on its own.
            None => rest_of(pid, addr, bytes.map(<[u8]>::to_vec).unwrap_or_default(), *budget)?,
        };
        *budget = budget.checked_sub(string.len() + 1).ok_or(Errno::E2BIG)?;
        out.push(String::from_utf8_lossy(&string).into_owned());
    }
    Ok(out)
}

/// How far beyond a new program's stack pointer its argv strings usually lie: argc, the argv and
/// environment pointers and the auxiliary vector come first, then the strings.
const WINDOW: usize = 8192;

/// The NULL-terminated array of string pointers at `addr` and the strings (lossy UTF-8, within
/// `budget` bytes in all), read in one call when all of them lie within [`WINDOW`] bytes from
/// `addr` — as on a new program's stack — else as [`pointers`] and [`strings`] read them.
pub(crate) fn strings_near(pid: Pid, addr: u64, budget: &mut usize) -> Result<Vec<String>, Errno> {
    let mut buf = vec![0u8; WINDOW];
    let remote = [RemoteIoVec { base: addr as usize, len: WINDOW }];
    // A partial read (the stack's top within the window) reads what is there.
    let read = process_vm_readv(pid, &mut [IoSliceMut::new(&mut buf)], &remote).unwrap_or(0);
    let buf = &buf[..read];
    let in_window = |ptr: u64| ptr.checked_sub(addr).and_then(|at| usize::try_from(at).ok()).filter(|at| *at < read);
    let mut out = Vec::new();
    let mut spent = 0usize;
    for word in buf.chunks_exact(8) {
        let ptr = u64::from_ne_bytes(word.try_into().unwrap_or_default());
        if ptr == 0 {
            *budget = budget.checked_sub(spent).ok_or(Errno::E2BIG)?;
            return Ok(out);
        }
        let Some(string) = in_window(ptr).and_then(|at| {
            let rest = &buf[at..];
            rest.iter().position(|c| *c == 0).map(|end| &rest[..end])
        }) else {
            break;
        };
        spent += string.len() + 1;
        out.push(String::from_utf8_lossy(string).into_owned());
    }
    let ptrs = pointers(pid, addr)?;
    strings(pid, &ptrs, budget)
}

/// The string at `addr` whose first bytes `start` are already read, page by page.
fn rest_of(pid: Pid, addr: u64, mut start: Vec<u8>, budget: usize) -> Result<Vec<u8>, Errno> {
    let mut buf = Vec::new();
    loop {
        let at = addr + start.len() as u64;
        let len = to_page_end(at, PAGE as usize);
        if read_ranges(pid, &[(at, len)], &mut buf) != 1 {
            return Err(Errno::EFAULT);
        }
        if let Some(end) = buf.iter().position(|c| *c == 0) {
            start.extend_from_slice(&buf[..end]);
            return Ok(start);
        }
        start.extend_from_slice(&buf);
        if start.len() > budget {
            return Err(Errno::E2BIG);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_array_is_read_as_the_kernel_reads_it() {
        // Read from this very process: its own memory is readable to it.
        let me = Pid::this();
        let long = std::ffi::CString::new("x".repeat(10_000)).expect("no NUL");
        let array = [c"git".as_ptr() as u64, c"".as_ptr() as u64, long.as_ptr() as u64, 0];
        let ptrs = pointers(me, array.as_ptr() as u64).expect("pointers");
        assert_eq!(ptrs, array[..3].to_vec());
        let mut budget = MAX_ARG_BYTES;
        let got = strings(me, &ptrs, &mut budget).expect("strings");
        assert_eq!(got, vec!["git".to_owned(), String::new(), "x".repeat(10_000)]);
        assert_eq!(budget, MAX_ARG_BYTES - (4 + 1 + 10_001));
        assert_eq!(strings(me, &ptrs, &mut 100), Err(Errno::E2BIG), "past the budget");
        assert_eq!(strings(me, &[0], &mut budget), Err(Errno::EFAULT), "a NULL string");
        assert_eq!(strings(me, &[ptrs[0], 8], &mut budget), Err(Errno::EFAULT), "an unmapped page");
        assert_eq!(pointers(me, 8), Err(Errno::EFAULT));
        assert_eq!(pointers(me, 0), Ok(Vec::new()), "a NULL array is empty");
    }

    #[test]
    fn an_array_is_read_at_once_when_its_strings_are_near_and_otherwise_as_before() {
        let me = Pid::this();
        // A stack-like block: the pointers, then the strings they point to.
        let mut block = vec![0u8; 512];
        let base = block.as_ptr() as u64;
        let text = b"true\0-v\0\0";
        block[64..64 + text.len()].copy_from_slice(text);
        for (i, word) in [base + 64, base + 69, base + 72, 0].iter().enumerate() {
            block[i * 8..i * 8 + 8].copy_from_slice(&word.to_ne_bytes());
        }
        let mut budget = MAX_ARG_BYTES;
        let got = strings_near(me, base, &mut budget).expect("read");
        assert_eq!(got, vec!["true".to_owned(), "-v".to_owned(), String::new()]);
        assert_eq!(budget, MAX_ARG_BYTES - (5 + 3 + 1));
        // A string far away is read on its own.
        let far = std::ffi::CString::new("far").expect("no NUL");
        let array = [c"near".as_ptr() as u64, far.as_ptr() as u64, 0];
        let mut budget = MAX_ARG_BYTES;
        let got = strings_near(me, array.as_ptr() as u64, &mut budget);
        assert_eq!(got, Ok(vec!["near".to_owned(), "far".to_owned()]));
        assert_eq!(strings_near(me, 8, &mut budget), Err(Errno::EFAULT), "an unmapped page");
    }
}
