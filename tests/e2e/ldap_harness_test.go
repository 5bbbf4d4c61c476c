package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	goldap "github.com/go-ldap/ldap/v3"
)

// Directory is an OpenLDAP slapd started by a test on loopback ports with a
// temporary configuration and database (mdb, the memberof overlay), plain
// LDAP (and StartTLS) on Port and LDAPS on TLSPort, with a test CA (CAFile)
// made here. It stops at the end of the test.
type Directory struct {
	t                testing.TB
	dir              string
	Port, TLSPort    int
	CAFile           string
	Base             string
	RootDN, RootPW   string
	ReaderDN, Reader string
	cmd              *exec.Cmd
}

// slapdPath finds slapd; without it the test is skipped, or failed in CI.
func slapdPath(t testing.TB) string {
	for _, p := range []string{"slapd", "/usr/sbin/slapd"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("slapd is not installed (apt-get install slapd ldap-utils): the LDAP tests need it in CI")
	}
	t.Skip("slapd is not installed (apt-get install slapd ldap-utils)")
	return ""
}

// ldapSSHSchema is the openssh-lpk schema (sshPublicKey), which Debian's
// slapd does not ship.
const ldapSSHSchema = `attributetype ( 1.3.6.1.4.1.24552.500.1.1.1.13 NAME 'sshPublicKey'
	DESC 'MANDATORY: OpenSSH Public key'
	EQUALITY octetStringMatch
	SYNTAX 1.3.6.1.4.1.1466.115.121.1.40 )
objectclass ( 1.3.6.1.4.1.24552.500.1.1.2.0 NAME 'ldapPublicKey' SUP top AUXILIARY
	DESC 'MANDATORY: OpenSSH LPK objectclass'
	MAY ( sshPublicKey $ uid ) )
`

// StartDirectory starts slapd with an empty suffix dc=example,dc=org, the
// units ou=people and ou=groups and a reader account for bind DN sources.
// ldif, if given, is loaded with slapadd before the start (fast, but it
// bypasses the memberof overlay).
func StartDirectory(t testing.TB, ldif string) *Directory {
	t.Helper()
	slapdPath(t) // skips (or fails in CI) without slapd
	d := &Directory{t: t, dir: t.TempDir(), Base: "dc=example,dc=org", RootDN: "cn=admin,dc=example,dc=org", RootPW: "root-secret",
		ReaderDN: "cn=reader,dc=example,dc=org", Reader: "reader-secret"}
	d.Port = portOf(t, freePort(t))
	d.TLSPort = portOf(t, freePort(t))
	d.writeCerts()
	if err := os.WriteFile(filepath.Join(d.dir, "openssh-lpk.schema"), []byte(ldapSSHSchema), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(d.dir, "db"), 0o700); err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf(`include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/nis.schema
include /etc/ldap/schema/inetorgperson.schema
include %[1]s/openssh-lpk.schema
pidfile %[1]s/slapd.pid
modulepath /usr/lib/ldap
moduleload back_mdb
moduleload memberof
TLSCACertificateFile %[1]s/ca.pem
TLSCertificateFile %[1]s/server.pem
TLSCertificateKeyFile %[1]s/server.key
sizelimit unlimited
database mdb
maxsize 1073741824
suffix "%[2]s"
rootdn "%[3]s"
rootpw %[4]s
directory %[1]s/db
index objectClass eq
index uid eq
index mail eq
overlay memberof
`, d.dir, d.Base, d.RootDN, d.RootPW)
	if err := os.WriteFile(filepath.Join(d.dir, "slapd.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	base := fmt.Sprintf(`dn: %[1]s
objectClass: dcObject
objectClass: organization
o: Example
dc: example

dn: ou=people,%[1]s
objectClass: organizationalUnit
ou: people

dn: ou=groups,%[1]s
objectClass: organizationalUnit
ou: groups

dn: %[2]s
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: reader
userPassword: %[3]s

`, d.Base, d.ReaderDN, d.Reader)
	d.slapadd(base + ldif)
	d.Start()
	t.Cleanup(d.Stop)
	return d
}

func portOf(t testing.TB, addr string) int {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(p)
	return n
}

func (d *Directory) slapadd(ldif string) {
	d.t.Helper()
	file := filepath.Join(d.dir, "load.ldif")
	if err := os.WriteFile(file, []byte(ldif), 0o600); err != nil {
		d.t.Fatal(err)
	}
	slapadd := strings.TrimSuffix(slapdPath(d.t), "slapd") + "slapadd"
	out, err := exec.Command(slapadd, "-q", "-f", filepath.Join(d.dir, "slapd.conf"), "-l", file).CombinedOutput()
	if err != nil {
		d.t.Fatalf("slapadd: %v\n%s", err, out)
	}
}

// Start starts (or restarts) slapd and waits until it answers.
func (d *Directory) Start() {
	d.t.Helper()
	urls := fmt.Sprintf("ldap://127.0.0.1:%d/ ldaps://127.0.0.1:%d/", d.Port, d.TLSPort)
	d.cmd = exec.Command(slapdPath(d.t), "-f", filepath.Join(d.dir, "slapd.conf"), "-h", urls, "-d", "0")
	logFile, err := os.Create(filepath.Join(d.dir, "slapd.log"))
	if err != nil {
		d.t.Fatal(err)
	}
	d.cmd.Stdout, d.cmd.Stderr = logFile, logFile
	if err := d.cmd.Start(); err != nil {
		d.t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", d.Port), time.Second); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(d.dir, "slapd.log"))
	d.t.Fatalf("slapd did not start:\n%s", log)
}

// Stop stops slapd (it can be started again).
func (d *Directory) Stop() {
	if d.cmd == nil || d.cmd.Process == nil {
		return
	}
	_ = d.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = d.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = d.cmd.Process.Kill()
		<-done
	}
	d.cmd = nil
}

// Conn returns a connection bound as the root DN.
func (d *Directory) Conn() *goldap.Conn {
	d.t.Helper()
	c, err := goldap.DialURL(fmt.Sprintf("ldap://127.0.0.1:%d", d.Port))
	if err != nil {
		d.t.Fatal(err)
	}
	if err := c.Bind(d.RootDN, d.RootPW); err != nil {
		d.t.Fatal(err)
	}
	return c
}

// AddUser adds uid=<uid>,ou=people with a password, names, mail and keys.
func (d *Directory) AddUser(uid, password, given, surname, mail string, keys ...string) string {
	d.t.Helper()
	dn := "uid=" + goldap.EscapeDN(uid) + ",ou=people," + d.Base
	req := goldap.NewAddRequest(dn, nil)
	req.Attribute("objectClass", []string{"inetOrgPerson", "ldapPublicKey"})
	req.Attribute("uid", []string{uid})
	req.Attribute("cn", []string{strings.TrimSpace(given + " " + surname)})
	req.Attribute("sn", []string{surname})
	if given != "" {
		req.Attribute("givenName", []string{given})
	}
	if mail != "" {
		req.Attribute("mail", []string{mail})
	}
	req.Attribute("userPassword", []string{password})
	if len(keys) > 0 {
		req.Attribute("sshPublicKey", keys)
	}
	c := d.Conn()
	defer c.Close()
	if err := c.Add(req); err != nil {
		d.t.Fatalf("add %s: %v", dn, err)
	}
	return dn
}

// AddGroup adds cn=<name>,ou=groups with members (DNs).
func (d *Directory) AddGroup(name string, members ...string) string {
	d.t.Helper()
	dn := "cn=" + name + ",ou=groups," + d.Base
	req := goldap.NewAddRequest(dn, nil)
	req.Attribute("objectClass", []string{"groupOfNames"})
	req.Attribute("cn", []string{name})
	req.Attribute("member", members)
	c := d.Conn()
	defer c.Close()
	if err := c.Add(req); err != nil {
		d.t.Fatalf("add %s: %v", dn, err)
	}
	return dn
}

// Modify applies one change to dn: op is "add", "delete" or "replace".
func (d *Directory) Modify(dn, op, attr string, values ...string) {
	d.t.Helper()
	req := goldap.NewModifyRequest(dn, nil)
	switch op {
	case "add":
		req.Add(attr, values)
	case "delete":
		req.Delete(attr, values)
	default:
		req.Replace(attr, values)
	}
	c := d.Conn()
	defer c.Close()
	if err := c.Modify(req); err != nil {
		d.t.Fatalf("modify %s: %v", dn, err)
	}
}

// Delete removes the entry dn.
func (d *Directory) Delete(dn string) {
	d.t.Helper()
	c := d.Conn()
	defer c.Close()
	if err := c.Del(goldap.NewDelRequest(dn, nil)); err != nil {
		d.t.Fatalf("delete %s: %v", dn, err)
	}
}

// writeCerts makes a test CA and a server certificate for 127.0.0.1 and
// localhost (ca.pem, server.pem, server.key in the directory's folder).
func (d *Directory) writeCerts() {
	d.t.Helper()
	d.CAFile, _ = testCertificates(d.t, d.dir)
}
