//! A loopback address that refuses connections for as long as its guard lives.
//!
//! Binding port 0 and dropping the listener frees the port for the next test of the same run to
//! take: a test that wanted "unreachable" then reached another test's server. Here the port is
//! held by a connected client socket instead: no listener sits on it, so a connection is refused,
//! and the kernel gives it to no other socket until the guard is dropped.

use std::net::{SocketAddr, TcpListener, TcpStream};

/// Keeps the refused port held; drop it when the test is done.
pub(crate) struct Refused {
    pub(crate) addr: SocketAddr,
    _held: (TcpStream, TcpStream),
}

/// A fresh refused address on 127.0.0.1.
pub(crate) fn refused() -> Refused {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let client = TcpStream::connect(listener.local_addr().expect("addr")).expect("connect");
    let (server, _) = listener.accept().expect("accept");
    let addr = client.local_addr().expect("addr");
    Refused { addr, _held: (client, server) }
}
