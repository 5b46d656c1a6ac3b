package main

import (
	"net"
	"syscall"
)

// smallReceiveBuffer is a dialer whose connections have a fixed receive
// buffer of size bytes (which also turns off the kernel's autotuning), so
// that a client that stops reading soon stops the sender.
func smallReceiveBuffer(size int) *net.Dialer {
	return &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, size)
		}); err != nil {
			return err
		}
		return serr
	}}
}
