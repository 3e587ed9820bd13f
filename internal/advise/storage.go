package advise

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// StorageOf tells the storage type of the block device that holds dir
// (the data directory of a server on this machine) from the kernel's
// queue/rotational flag: 0 ssd, 1 hdd. It reads sys ("/sys" on a real
// machine): sys/dev/block/MAJOR:MINOR is the device, its parent when it is
// a partition. The second result says where the answer came from, or why
// there is none (Unknown): a device that is not a block device (overlay,
// tmpfs, a btrfs subvolume), a directory that cannot be read. A SAN cannot
// be told from the flag; a virtual disk's flag is the hypervisor's, often
// rotational whatever the medium underneath, which the source says.
func StorageOf(dir, sys string) (Storage, string) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return Unknown, fmt.Sprintf("unknown: cannot stat the data directory %s: %v (give --storage)", dir, err)
	}
	maj, mnr := unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev))
	dev := filepath.Join(sys, "dev", "block", fmt.Sprintf("%d:%d", maj, mnr))
	real, err := filepath.EvalSymlinks(dev)
	if err != nil {
		return Unknown, fmt.Sprintf("unknown: the data directory's device %d:%d is not a block device (overlay, tmpfs, btrfs subvolume?) (give --storage)", maj, mnr)
	}
	if _, err := os.Stat(filepath.Join(real, "partition")); err == nil {
		real = filepath.Dir(real)
	}
	name := filepath.Base(real)
	flag, err := os.ReadFile(filepath.Join(real, "queue", "rotational"))
	if err != nil {
		return Unknown, fmt.Sprintf("unknown: %s has no queue/rotational flag (give --storage)", name)
	}
	src := fmt.Sprintf("/sys/block/%s/queue/rotational = %s, the data directory's device", name, strings.TrimSpace(string(flag)))
	if virtualDisk(name) {
		src += " (a virtual disk: the hypervisor's flag, not the medium's; give --storage if it is wrong)"
	}
	switch strings.TrimSpace(string(flag)) {
	case "0":
		return SSD, src
	case "1":
		return HDD, src
	}
	return Unknown, fmt.Sprintf("unknown: %s's queue/rotational is %q (give --storage)", name, strings.TrimSpace(string(flag)))
}

// virtualDisk says whether a block device's name is a paravirtual disk's
// (virtio vdX, Xen xvdX).
func virtualDisk(name string) bool {
	return strings.HasPrefix(name, "vd") || strings.HasPrefix(name, "xvd")
}
