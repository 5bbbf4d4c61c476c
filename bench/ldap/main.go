// Command ldap measures the LDAP sign-in source against a local OpenLDAP
// slapd it starts itself (issue 16): the server-side time of a sign-in of a
// directory user (user.Service.Authenticate, as the web, API and git over
// HTTP call it), the same for a wrong password and an unknown login (they
// should cost the same), and a synchronisation of N directory users (loaded
// with slapadd) into an empty SQLite instance, with its duration and the
// peak Go heap sampled during it (memory should stay flat as N grows).
// Usage: go run ./bench/ldap [-users 10000] [-signins 200] [-db URL]   (needs slapd)
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cairn-forge/cairn/internal/authsource"
	ldapsource "github.com/cairn-forge/cairn/internal/authsource/ldap"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/db/migrations"
	"github.com/cairn-forge/cairn/internal/user"
	"github.com/cairn-forge/cairn/internal/webhook"
)

const base = "dc=example,dc=org"

func main() {
	users := flag.Int("users", 10000, "directory users to synchronise")
	signins := flag.Int("signins", 200, "sign-ins to time")
	dbURL := flag.String("db", "", "database URL (postgres:// or mysql://, a database of its own: it is migrated); empty: SQLite in a temporary directory")
	flag.Parse()
	ctx := context.Background()
	work, err := os.MkdirTemp("", "cairn-ldap-bench-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)
	port, stop := startSlapd(work, *users)
	defer stop()

	d, err := db.Open(ctx, *dbURL, work)
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	if err := d.Migrate(ctx, migrations.All()); err != nil {
		log.Fatal(err)
	}
	box, err := webhook.NewSecretBox(make([]byte, 32))
	if err != nil {
		log.Fatal(err)
	}
	us := user.NewService(d, user.Options{})
	quiet := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	sources := authsource.NewService(d, box, authsource.NewRegistry(ldapsource.Kinds()...), us, quiet)
	us.SetExternalSources(sources)
	src := &authsource.Source{Type: authsource.TypeLDAP, Name: "bench", IsActive: true, IsSyncEnabled: true, Config: &ldapsource.Config{
		Mode: authsource.TypeLDAP, Host: "127.0.0.1", Port: port, BindDN: "cn=admin," + base, BindPassword: "root-secret",
		UserBase: "ou=people," + base, Filter: "(&(objectClass=inetOrgPerson)(uid=%s))", AdminFilter: "(employeeType=admin)",
		AttributeUsername: "uid", AttributeName: "givenName", AttributeSurname: "sn", AttributeMail: "mail",
		AttributeSSHPublicKey: "sshPublicKey", SearchPageSize: 500,
	}}
	if err := sources.Create(ctx, src); err != nil {
		log.Fatal(err)
	}

	// Sign-in: the first one registers the account, the next ones are timed.
	if _, err := us.Authenticate(ctx, "user1", "pw-1", "127.0.0.1:1"); err != nil {
		log.Fatal("first sign-in: ", err)
	}
	timeIt := func(login, pw string, wantOK bool) []time.Duration {
		out := make([]time.Duration, 0, *signins)
		for range *signins {
			t0 := time.Now()
			_, err := us.Authenticate(ctx, login, pw, "127.0.0.1:1")
			out = append(out, time.Since(t0))
			if (err == nil) != wantOK {
				log.Fatalf("sign-in %s: %v", login, err)
			}
		}
		return out
	}
	ok := timeIt("user1", "pw-1", true)
	wrong := timeIt("user1", "not-the-password", false)
	unknown := timeIt("nobody-here", "not-the-password", false)
	fmt.Printf("LDAP sign-in (server side, %d each): ok p50 %v p95 %v | wrong password p50 %v | unknown login p50 %v\n",
		*signins, pct(ok, 50), pct(ok, 95), pct(wrong, 50), pct(unknown, 50))

	// Synchronisation of every directory user, heap sampled every 5 ms.
	runtime.GC()
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	t0 := time.Now()
	res, err := sources.Sync(ctx, src, true)
	took := time.Since(t0)
	close(done)
	if err != nil {
		log.Fatal("sync: ", err)
	}
	fmt.Printf("sync of %d directory users: %v (listed %d, created %d, updated %d, skipped %d), peak heap in use %.1f MiB\n",
		*users, took.Round(time.Millisecond), res.Listed, res.Created, res.Updated, res.Skipped, float64(peak.Load())/(1<<20))
	t0 = time.Now()
	res, err = sources.Sync(ctx, src, true)
	if err != nil {
		log.Fatal("second sync: ", err)
	}
	fmt.Printf("second sync (nothing changed): %v (updated %d)\n", time.Since(t0).Round(time.Millisecond), res.Updated)
}

func pct(ds []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[(len(s)-1)*p/100].Round(10 * time.Microsecond)
}

// startSlapd loads n users with slapadd and starts slapd on a free port.
func startSlapd(work string, n int) (int, func()) {
	slapd, err := exec.LookPath("slapd")
	if err != nil {
		slapd = "/usr/sbin/slapd"
	}
	if err := os.MkdirAll(filepath.Join(work, "ldap"), 0o700); err != nil {
		log.Fatal(err)
	}
	schema := `attributetype ( 1.3.6.1.4.1.24552.500.1.1.1.13 NAME 'sshPublicKey' EQUALITY octetStringMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.40 )
objectclass ( 1.3.6.1.4.1.24552.500.1.1.2.0 NAME 'ldapPublicKey' SUP top AUXILIARY MAY ( sshPublicKey $ uid ) )
`
	write(filepath.Join(work, "lpk.schema"), schema)
	conf := fmt.Sprintf(`include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/nis.schema
include /etc/ldap/schema/inetorgperson.schema
include %[1]s/lpk.schema
pidfile %[1]s/slapd.pid
modulepath /usr/lib/ldap
moduleload back_mdb
sizelimit unlimited
database mdb
maxsize 4294967296
suffix "%[2]s"
rootdn "cn=admin,%[2]s"
rootpw root-secret
directory %[1]s/ldap
index objectClass eq
index uid eq
index employeeType eq
`, work, base)
	write(filepath.Join(work, "slapd.conf"), conf)
	var b strings.Builder
	fmt.Fprintf(&b, "dn: %s\nobjectClass: dcObject\nobjectClass: organization\no: Example\ndc: example\n\n", base)
	fmt.Fprintf(&b, "dn: ou=people,%s\nobjectClass: organizationalUnit\nou: people\n\n", base)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "dn: uid=user%d,ou=people,%s\nobjectClass: inetOrgPerson\nobjectClass: ldapPublicKey\nuid: user%d\ncn: User %d\ngivenName: User\nsn: Number%d\nmail: user%d@example.org\nuserPassword: pw-%d\n",
			i, base, i, i, i, i, i)
		if i%1000 == 0 {
			b.WriteString("employeeType: admin\n")
		}
		b.WriteString("\n")
	}
	write(filepath.Join(work, "users.ldif"), b.String())
	slapadd := filepath.Join(filepath.Dir(slapd), "slapadd")
	if out, err := exec.Command(slapadd, "-q", "-f", filepath.Join(work, "slapd.conf"), "-l", filepath.Join(work, "users.ldif")).CombinedOutput(); err != nil {
		log.Fatalf("slapadd: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(slapd, "-f", filepath.Join(work, "slapd.conf"), "-h", fmt.Sprintf("ldap://127.0.0.1:%d/", port), "-d", "0")
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	for range 300 {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return port, func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
}

func write(path, s string) {
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		log.Fatal(err)
	}
}
