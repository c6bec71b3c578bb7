//! The daemon proves who it is before a forwarding `aimon-hooks <client>` sends it a call: anything
//! that accepts on the socket could otherwise answer every call with an empty success.
//!
//! On the connection it will forward on, the client sends `GET /v1/hello` with a fresh random
//! nonce. The daemon answers with its stance (its process id, whether it audits every hook, the
//! home directory whose policy it serves) and an HMAC-SHA256 of the nonce and that stance, keyed
//! by serve's token (`~/.aimon/serve.token`, mode 0600, which self-protection keeps out of every
//! tool call's reading). The client believes the peer only when the MAC checks out with the token
//! it reads itself, the kernel's credentials of the connection's peer (`SO_PEERCRED`) have its own
//! user id and the process id the stance names (so a listener relaying the hello to the real
//! daemon is not the peer it claims to be), the home is its own, and the daemon audits nothing the
//! client would enforce. This module holds both sides' pure parts; the exchange is in `client.rs`
//! and the route in `listen.rs`.

use std::os::unix::ffi::OsStrExt as _;
use std::path::Path;

use hmac::{Hmac, KeyInit as _, Mac as _};
use sha2::Sha256;

/// The route of the hello; served on the Unix socket only.
pub(crate) const HELLO_PATH: &str = "/v1/hello";
/// The request header carrying the client's nonce (hex).
pub(crate) const NONCE_HEADER: &str = "x-aimon-nonce";
/// The response header carrying the daemon's MAC (hex).
pub(crate) const PROOF_HEADER: &str = "x-aimon-proof";
/// The most a stance may take: a home path and a few short lines.
pub(crate) const STANCE_LIMIT: usize = 8 * 1024;
/// What the MAC is for, so it is never valid as anything else made with the same token.
const LABEL: &[u8] = b"aimon-hooks serve hello v1\0";
/// Nonce bytes the client draws.
const NONCE_BYTES: usize = 16;

/// What a daemon says of itself in its hello.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stance {
    /// The daemon's process id (checked against the connection's peer credentials).
    pub(crate) pid: u32,
    /// Every hook runs in audit mode: it decides nothing (`serve --audit`, `AIMON_AUDIT=1` as the
    /// binary read it).
    pub(crate) audit: bool,
    /// The home directory whose `.aimon/` is the user tier the daemon applies.
    pub(crate) home: Vec<u8>,
}

impl Stance {
    /// This process's stance, as a daemon serving `home` (canonical, so two spellings of one
    /// directory are one home) whose hooks all audit when `audit`.
    pub(crate) fn of_this_process(home: &Path, audit: bool) -> Self {
        let home = std::fs::canonicalize(home).unwrap_or_else(|_| home.to_owned());
        Stance { pid: std::process::id(), audit, home: home.as_os_str().as_bytes().to_vec() }
    }

    /// The bytes the daemon sends and MACs: `v1`, then one `key=value` line each, the home last
    /// (its bytes as they are, newlines included).
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mode = if self.audit { "audit" } else { "enforce" };
        let mut out = format!("v1\npid={}\nmode={mode}\nhome=", self.pid).into_bytes();
        out.extend_from_slice(&self.home);
        out
    }

    /// Reads what [`Stance::encode`] wrote; `None` for anything else.
    pub(crate) fn decode(bytes: &[u8]) -> Option<Self> {
        let rest = bytes.strip_prefix(b"v1\npid=")?;
        let end = rest.iter().position(|&b| b == b'\n')?;
        let pid = std::str::from_utf8(&rest[..end]).ok()?.parse().ok()?;
        let rest = &rest[end + 1..];
        let (audit, rest) = if let Some(rest) = rest.strip_prefix(b"mode=enforce\n") {
            (false, rest)
        } else {
            (true, rest.strip_prefix(b"mode=audit\n")?)
        };
        let home = rest.strip_prefix(b"home=")?.to_vec();
        Some(Stance { pid, audit, home })
    }

    /// Why a daemon of this stance may not answer for a client that would evaluate the call itself
    /// with the stance `mine`, if it may not: another home's policy, or audit where the client
    /// enforces. The process ids are compared with the connection's credentials, not here.
    pub(crate) fn short_of(&self, mine: &Stance) -> Option<String> {
        if self.home != mine.home {
            return Some(format!(
                "it serves the policy of another home directory ({})",
                String::from_utf8_lossy(&self.home)
            ));
        }
        (self.audit && !mine.audit).then(|| "it runs in audit mode, so its hooks decide nothing".to_owned())
    }
}

/// A fresh nonce, hex.
pub(crate) fn nonce() -> Result<String, String> {
    let mut bytes = [0u8; NONCE_BYTES];
    getrandom::fill(&mut bytes).map_err(|e| format!("no random nonce: {e}"))?;
    Ok(hex(&bytes))
}

/// Whether `nonce` is what [`nonce`] makes: the daemon MACs nothing else.
pub(crate) fn is_nonce(nonce: &[u8]) -> bool {
    nonce.len() == 2 * NONCE_BYTES && nonce.iter().all(u8::is_ascii_hexdigit)
}

fn mac(key: &[u8], nonce: &[u8], stance: &[u8]) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(LABEL);
    mac.update(nonce);
    mac.update(b"\0");
    mac.update(stance);
    mac
}

/// The daemon's side: the MAC of `nonce` and `stance` under `key`, hex.
pub(crate) fn sign(key: &[u8], nonce: &[u8], stance: &[u8]) -> String {
    hex(&mac(key, nonce, stance).finalize().into_bytes())
}

/// The client's side: whether `proof` (hex) is the MAC of `nonce` and `stance` under `key`;
/// compared in constant time.
pub(crate) fn verify(key: &[u8], nonce: &[u8], stance: &[u8], proof: &[u8]) -> bool {
    let Some(proof) = unhex(proof) else { return false };
    mac(key, nonce, stance).verify_slice(&proof).is_ok()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &[u8]) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    text.chunks(2).map(|pair| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stance(pid: u32, audit: bool, home: &str) -> Stance {
        Stance { pid, audit, home: home.as_bytes().to_vec() }
    }

    #[test]
    fn a_stance_reads_back_as_it_was_written_and_nothing_else_reads_as_one() {
        for s in [stance(1, false, "/home/a"), stance(4_000_000, true, "/h\nmode=enforce"), stance(7, false, "")] {
            assert_eq!(Stance::decode(&s.encode()), Some(s.clone()), "{s:?}");
        }
        for garbage in [&b""[..], b"{}", b"v1\npid=x\nmode=enforce\nhome=/h", b"v1\npid=1\nmode=lax\nhome=/h", b"v2"] {
            assert_eq!(Stance::decode(garbage), None, "{}", String::from_utf8_lossy(garbage));
        }
    }

    #[test]
    fn only_the_mac_of_this_nonce_and_this_stance_under_this_key_verifies() {
        let (key, nonce, body) = (b"token".as_slice(), b"00ff".as_slice(), stance(1, false, "/h").encode());
        let proof = sign(key, nonce, &body);
        assert!(verify(key, nonce, &body, proof.as_bytes()));
        assert!(!verify(b"other token", nonce, &body, proof.as_bytes()), "another home's token");
        assert!(!verify(key, b"00fe", &body, proof.as_bytes()), "another nonce (a replay)");
        assert!(!verify(key, nonce, &stance(1, true, "/h").encode(), proof.as_bytes()), "another stance");
        for garbage in ["", "zz", "0", &proof[..proof.len() - 2]] {
            assert!(!verify(key, nonce, &body, garbage.as_bytes()), "{garbage:?}");
        }
    }

    #[test]
    fn a_daemon_of_another_home_or_auditing_what_the_client_enforces_falls_short() {
        let mine = stance(1, false, "/home/me");
        assert_eq!(stance(2, false, "/home/me").short_of(&mine), None);
        assert!(stance(2, false, "/tmp/empty").short_of(&mine).is_some());
        assert!(stance(2, true, "/home/me").short_of(&mine).is_some());
        assert_eq!(stance(2, true, "/home/me").short_of(&stance(1, true, "/home/me")), None, "both audit");
    }

    #[test]
    fn a_nonce_is_hex_of_its_length() {
        let fresh = nonce().expect("a nonce");
        assert!(is_nonce(fresh.as_bytes()), "{fresh}");
        assert_ne!(fresh, nonce().expect("a nonce"));
        assert!(!is_nonce(b"00ff"));
        assert!(!is_nonce(&[b'g'; 2 * NONCE_BYTES]));
    }
}
