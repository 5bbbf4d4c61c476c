package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// softKey is a security key in software, as a browser and an authenticator
// together would answer the server's ceremonies: a P-256 key pair, a
// credential id and a signature counter, speaking CBOR and the WebAuthn
// JSON the server reads. It lets the ceremonies run on every database,
// and send what a real browser would not (a wrong origin or challenge, a
// replay, a counter that goes back).
type softKey struct {
	t       testing.TB
	priv    *ecdsa.PrivateKey
	id      []byte
	counter uint32
	origin  string // the client's origin (the server's root URL)
	rpID    string
}

func newSoftKey(t testing.TB, rootURL string) *softKey {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 32)
	_, _ = rand.Read(id)
	u, err := url.Parse(rootURL)
	if err != nil {
		t.Fatal(err)
	}
	return &softKey{t: t, priv: priv, id: id, origin: u.Scheme + "://" + u.Host, rpID: u.Hostname()}
}

// cborHead is a CBOR item's head: major type and argument.
func cborHead(major byte, n uint64) []byte {
	switch {
	case n < 24:
		return []byte{major<<5 | byte(n)}
	case n < 1<<8:
		return []byte{major<<5 | 24, byte(n)}
	case n < 1<<16:
		return binary.BigEndian.AppendUint16([]byte{major<<5 | 25}, uint16(n))
	default:
		return binary.BigEndian.AppendUint32([]byte{major<<5 | 26}, uint32(n))
	}
}

// cborInt, cborBytes, cborText and cborMap encode the few CBOR items the
// attestation needs; a map's entries are given already encoded, in order.
func cborInt(v int64) []byte {
	if v < 0 {
		return cborHead(1, uint64(-1-v))
	}
	return cborHead(0, uint64(v))
}

func cborBytes(b []byte) []byte { return append(cborHead(2, uint64(len(b))), b...) }

func cborText(s string) []byte { return append(cborHead(3, uint64(len(s))), s...) }

func cborMap(kv ...[]byte) []byte {
	out := cborHead(5, uint64(len(kv)/2))
	for _, b := range kv {
		out = append(out, b...)
	}
	return out
}

// coseKey is the public key as a COSE EC2 key (ES256).
func (k *softKey) coseKey() []byte {
	x := k.priv.X.FillBytes(make([]byte, 32))
	y := k.priv.Y.FillBytes(make([]byte, 32))
	return cborMap(cborInt(1), cborInt(2), cborInt(3), cborInt(-7), cborInt(-1), cborInt(1), cborInt(-2), cborBytes(x), cborInt(-3), cborBytes(y))
}

// authData is the authenticator data: RP ID hash, flags (user present),
// counter and, when attested, the credential.
func (k *softKey) authData(attested bool) []byte {
	rp := sha256.Sum256([]byte(k.rpID))
	flags := byte(0x01)
	if attested {
		flags |= 0x40
	}
	out := append(rp[:], flags)
	out = binary.BigEndian.AppendUint32(out, k.counter)
	if attested {
		out = append(out, make([]byte, 16)...) // AAGUID: none told
		out = binary.BigEndian.AppendUint16(out, uint16(len(k.id)))
		out = append(out, k.id...)
		out = append(out, k.coseKey()...)
	}
	return out
}

func wab64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func (k *softKey) clientData(typ, challenge, origin string) []byte {
	b, _ := json.Marshal(map[string]any{"type": typ, "challenge": challenge, "origin": origin, "crossOrigin": false})
	return b
}

// ceremonyOptions are the fields of the server's options the key reads.
type ceremonyOptions struct {
	PublicKey struct {
		Challenge string `json:"challenge"`
		RPID      string `json:"rpId"`
		RP        struct {
			ID string `json:"id"`
		} `json:"rp"`
		User struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"user"`
		AllowCredentials []struct {
			ID string `json:"id"`
		} `json:"allowCredentials"`
		ExcludeCredentials []struct {
			ID string `json:"id"`
		} `json:"excludeCredentials"`
	} `json:"publicKey"`
}

// create is the answer to navigator.credentials.create() for options,
// from origin.
func (k *softKey) create(o ceremonyOptions, origin string) string {
	att := cborMap(cborText("fmt"), cborText("none"), cborText("attStmt"), cborMap(), cborText("authData"), cborBytes(k.authData(true)))
	b, _ := json.Marshal(map[string]any{"id": wab64(k.id), "rawId": wab64(k.id), "type": "public-key", "clientExtensionResults": map[string]any{},
		"response": map[string]any{"clientDataJSON": wab64(k.clientData("webauthn.create", o.PublicKey.Challenge, origin)), "attestationObject": wab64(att)}})
	return string(b)
}

// get is the answer to navigator.credentials.get() for challenge, with
// the counter moved to counter.
func (k *softKey) get(challenge string, counter uint32, userHandle string) string {
	k.counter = counter
	ad := k.authData(false)
	cd := k.clientData("webauthn.get", challenge, k.origin)
	sum := sha256.Sum256(cd)
	digest := sha256.Sum256(append(append([]byte{}, ad...), sum[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, k.priv, digest[:])
	if err != nil {
		k.t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"id": wab64(k.id), "rawId": wab64(k.id), "type": "public-key", "clientExtensionResults": map[string]any{},
		"response": map[string]any{"clientDataJSON": wab64(cd), "authenticatorData": wab64(ad), "signature": wab64(sig), "userHandle": userHandle}})
	return string(b)
}

// postJSON sends body to path with the CSRF token of the last page loaded,
// as static/webauthn.js does.
func (w *Web) postJSON(path, body string) *Page {
	w.t.Helper()
	req, err := http.NewRequest("POST", w.s.URL+strings.TrimPrefix(path, "/"), strings.NewReader(body))
	if err != nil {
		w.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Csrf-Token", w.csrf)
	return w.do(req)
}

// options decodes a ceremony's options page.
func (p *Page) options(t testing.TB) ceremonyOptions {
	t.Helper()
	var o ceremonyOptions
	if p.Status != http.StatusOK || json.Unmarshal([]byte(p.Body), &o) != nil || o.PublicKey.Challenge == "" {
		t.Fatalf("ceremony options: %d %s", p.Status, p.Body)
	}
	return o
}

// TestWebSecurityKey registers a security key in software through the
// settings' JSON steps and signs in with it, checking what a browser would
// never send: another origin, another challenge, a replayed assertion, a
// counter that does not grow, a name or key registered twice, another
// account's key; then a passcode beside the key and the key's removal.
// REQUIRE_SIGNIN_VIEW is on: the key's step stays open to the visitor
// signing in.
func TestWebSecurityKey(t *testing.T) {
	s := StartServer(t, WithRootHost("localhost"), WithEnv("CAIRN_SERVICE_REQUIRE_SIGNIN_VIEW=true"))
	u := s.CreateUser("keyuser")
	other := s.CreateUser("otheruser")
	key := newSoftKey(t, s.URL)

	w := s.Web(t)
	w.SignIn(u.Name, u.Password)
	w.Get("user/settings/security").MustContain(t, http.StatusOK, `id="webauthn-register"`, "You have no security keys.", "/assets/webauthn.")

	// Registration: a wrong origin is refused and uses the ceremony up.
	o := w.Post("user/settings/security/webauthn/request_register", url.Values{"name": {"Soft key"}}).options(t)
	if o.PublicKey.RP.ID != "localhost" || o.PublicKey.User.Name != u.Name || len(o.PublicKey.ExcludeCredentials) != 0 {
		t.Fatalf("creation options: %+v", o)
	}
	answer := key.create(o, "http://evil.example")
	w.postJSON("user/settings/security/webauthn/register", answer).MustContain(t, http.StatusUnprocessableEntity, "did not verify")
	w.postJSON("user/settings/security/webauthn/register", key.create(o, key.origin)).
		MustContain(t, http.StatusUnprocessableEntity, "expired or was not started")
	w.Get("user/settings/security")
	o = w.Post("user/settings/security/webauthn/request_register", url.Values{"name": {"Soft key"}}).options(t)
	w.postJSON("user/settings/security/webauthn/register", key.create(o, key.origin)).MustContain(t, http.StatusCreated, `"name":"Soft key"`)
	w.Get("user/settings/security").MustContain(t, http.StatusOK, `class="webauthn-key-name">Soft key<`, "has been added")

	// The name and the key are not registered twice; empty names are refused.
	w.Post("user/settings/security/webauthn/request_register", url.Values{"name": {"soft KEY"}}).MustContain(t, http.StatusConflict, "exists already")
	w.Post("user/settings/security/webauthn/request_register", url.Values{"name": {"  "}}).MustContain(t, http.StatusUnprocessableEntity, "needs a name")
	o = w.Post("user/settings/security/webauthn/request_register", url.Values{"name": {"Again"}}).options(t)
	if len(o.PublicKey.ExcludeCredentials) != 1 || o.PublicKey.ExcludeCredentials[0].ID != wab64(key.id) {
		t.Fatalf("the registered key is not excluded: %+v", o.PublicKey.ExcludeCredentials)
	}
	w.postJSON("user/settings/security/webauthn/register", key.create(o, key.origin)).MustContain(t, http.StatusConflict, "registered already")
	// Nor to another account.
	ow := s.Web(t)
	ow.SignIn(other.Name, other.Password)
	ow.Get("user/settings/security")
	o = ow.Post("user/settings/security/webauthn/request_register", url.Values{"name": {"Borrowed"}}).options(t)
	ow.postJSON("user/settings/security/webauthn/register", key.create(o, key.origin)).MustContain(t, http.StatusConflict, "registered already")
	// A signed-out visitor gets no options (but the sign-in page).
	anon := s.Web(t)
	anon.Get("user/login")
	if p := anon.Post("user/settings/security/webauthn/request_register", url.Values{"name": {"x"}}); p.Status != http.StatusSeeOther ||
		!strings.HasPrefix(p.Location, "/user/login") {
		t.Fatalf("signed-out registration: %d %q %s", p.Status, p.Location, p.Body)
	}

	t.Run("password basic auth is refused", func(t *testing.T) {
		r := s.Do("GET", "api/v1/user", Basic(u.Name, u.Password))
		if r.Status != http.StatusUnauthorized || !strings.Contains(string(r.Body), "Basic authorization is not allowed while having security keys enrolled") {
			t.Fatalf("API password: %d %s", r.Status, r.Body)
		}
		// A wrong password says nothing about keys.
		if r := s.Do("GET", "api/v1/user", Basic(u.Name, "wrong-password")); r.Status != http.StatusUnauthorized || strings.Contains(string(r.Body), "security keys") {
			t.Fatalf("API wrong password: %d %s", r.Status, r.Body)
		}
		if r := s.Do("GET", "api/v1/user", Basic(u.Name, u.Token)); r.Status != http.StatusOK {
			t.Fatalf("token as password: %d %s", r.Status, r.Body)
		}
	})

	// signIn gives the password and returns the client, at the key's step.
	signIn := func() *Web {
		t.Helper()
		b := s.Web(t)
		b.Get("user/login")
		p := b.Post("user/login", url.Values{"user_name": {u.Name}, "password": {u.Password}, "redirect_to": {"/user/settings"}})
		if p.Status != http.StatusSeeOther || p.Location != "/user/webauthn" {
			t.Fatalf("password step: %d %q", p.Status, p.Location)
		}
		b.Get("user/webauthn").MustContain(t, http.StatusOK, `id="webauthn-signin"`)
		return b
	}
	signedIn := func(b *Web) bool { return strings.Contains(b.Get("/").Body, "Sign out") }
	handle := wab64(binary.BigEndian.AppendUint64(nil, uint64(u.ID)))

	var good string
	t.Run("sign in with the key", func(t *testing.T) {
		b := signIn()
		if signedIn(b) {
			t.Fatal("signed in by the password alone")
		}
		o := b.Get("user/webauthn/assertion").options(t)
		if o.PublicKey.RPID != "localhost" || len(o.PublicKey.AllowCredentials) != 1 || o.PublicKey.AllowCredentials[0].ID != wab64(key.id) {
			t.Fatalf("assertion options: %+v", o)
		}
		// Another challenge is refused, and uses the ceremony up.
		other := wab64([]byte("0123456789abcdef0123456789abcdef"))
		b.postJSON("user/webauthn/assertion", key.get(other, 1, handle)).MustContain(t, http.StatusUnauthorized, "did not verify")
		b.postJSON("user/webauthn/assertion", key.get(o.PublicKey.Challenge, 2, handle)).MustContain(t, http.StatusUnauthorized, "expired or was not started")
		if signedIn(b) {
			t.Fatal("signed in by a refused assertion")
		}
		o = b.Get("user/webauthn/assertion").options(t)
		good = key.get(o.PublicKey.Challenge, 3, handle)
		b.postJSON("user/webauthn/assertion", good).MustContain(t, http.StatusOK, `{"redirect":"/user/settings"}`)
		if !signedIn(b) {
			t.Fatal("not signed in after the key")
		}
	})

	t.Run("a replayed assertion is refused", func(t *testing.T) {
		b := signIn()
		b.postJSON("user/webauthn/assertion", good).MustContain(t, http.StatusUnauthorized, "expired or was not started")
		b.Get("user/webauthn/assertion").options(t)
		b.postJSON("user/webauthn/assertion", good).MustContain(t, http.StatusUnauthorized, "did not verify")
		if signedIn(b) {
			t.Fatal("signed in by a replayed assertion")
		}
	})

	t.Run("a counter that does not grow is refused as a clone", func(t *testing.T) {
		b := signIn()
		o := b.Get("user/webauthn/assertion").options(t)
		b.postJSON("user/webauthn/assertion", key.get(o.PublicKey.Challenge, 3, handle)).MustContain(t, http.StatusUnauthorized, "may have been cloned")
		if signedIn(b) {
			t.Fatal("signed in by a cloned key")
		}
		w.Get("user/settings/security").MustContain(t, http.StatusOK, "Possibly cloned")
		o = b.Get("user/webauthn/assertion").options(t)
		b.postJSON("user/webauthn/assertion", key.get(o.PublicKey.Challenge, 10, handle)).MustContain(t, http.StatusOK, `"redirect"`)
	})

	t.Run("another account's sign-in cannot use the key", func(t *testing.T) {
		b := s.Web(t)
		b.SignIn(other.Name, other.Password) // no second factor: signed in
		if p := b.Get("user/webauthn"); p.Status != http.StatusSeeOther || p.Location != "/user/login" {
			t.Fatalf("key page without a pending sign-in: %d %q", p.Status, p.Location)
		}
		if p := b.Get("user/webauthn/assertion"); p.Status != http.StatusUnauthorized {
			t.Fatalf("options without a pending sign-in: %d %s", p.Status, p.Body)
		}
		// Nor can the other account remove the key.
		id := keyID(t, w)
		b.Get("user/settings/security")
		if p := b.Post("user/settings/security/webauthn/delete", url.Values{"id": {strconv.FormatInt(id, 10)}}); p.Status != http.StatusNotFound {
			t.Fatalf("deleting another account's key: %d", p.Status)
		}
		w.Get("user/settings/security").MustContain(t, http.StatusOK, "Soft key")
	})

	t.Run("a deleted account's keys go with it", func(t *testing.T) {
		spare := newSoftKey(t, s.URL)
		ow.Get("user/settings/security")
		o := ow.Post("user/settings/security/webauthn/request_register", url.Values{"name": {"Spare"}}).options(t)
		ow.postJSON("user/settings/security/webauthn/register", spare.create(o, spare.origin)).MustContain(t, http.StatusCreated, `"name":"Spare"`)
		if r := s.Do("DELETE", "api/v1/admin/users/"+other.Name, Token(s.AdminTok)); r.Status != http.StatusNoContent {
			t.Fatalf("delete %s: %d %s", other.Name, r.Status, r.Body)
		}
		// The key is free again: another account registers it.
		heir := s.CreateUser("heir")
		hw := s.Web(t)
		hw.SignIn(heir.Name, heir.Password)
		hw.Get("user/settings/security")
		o = hw.Post("user/settings/security/webauthn/request_register", url.Values{"name": {"Spare"}}).options(t)
		hw.postJSON("user/settings/security/webauthn/register", spare.create(o, spare.origin)).MustContain(t, http.StatusCreated, `"name":"Spare"`)
	})

	t.Run("a passcode works beside the key", func(t *testing.T) {
		for time.Now().Unix()%30 > 20 {
			time.Sleep(time.Second)
		}
		enrol := w.Get("user/settings/security/two_factor/enroll")
		m := twoFASecret.FindStringSubmatch(enrol.Body)
		if m == nil {
			t.Fatalf("no secret on the page: %s", enrol.Body)
		}
		step := time.Now().Unix() / 30
		w.Post("user/settings/security/two_factor/enroll", url.Values{"passcode": {totpAt(t, m[1], step-1)}}).MustContain(t, http.StatusOK, "is <strong>enabled</strong>")
		// The API still refuses the password, even with a passcode (as Gitea).
		if r := s.Do("GET", "api/v1/user", Basic(u.Name, u.Password), Header("X-Gitea-OTP", totpAt(t, m[1], step+1))); r.Status != http.StatusUnauthorized ||
			!strings.Contains(string(r.Body), "security keys enrolled") {
			t.Fatalf("API password with a passcode: %d %s", r.Status, r.Body)
		}
		b := signIn()
		b.Get("user/webauthn").MustContain(t, http.StatusOK, `href="/user/two_factor"`)
		b.Get("user/two_factor").MustContain(t, http.StatusOK, `href="/user/webauthn"`)
		if p := b.Post("user/two_factor", url.Values{"passcode": {totpAt(t, m[1], step)}}); p.Status != http.StatusSeeOther || p.Location != "/user/settings" {
			t.Fatalf("passcode step: %d %q %s", p.Status, p.Location, p.Body)
		}
		if !signedIn(b) {
			t.Fatal("not signed in by the passcode")
		}
	})

	t.Run("keys still count when ROOT_URL names no domain", func(t *testing.T) {
		s.Stop()
		s.Env = append(s.Env, "CAIRN_ROOT_URL=http://"+s.HTTPAddr+"/")
		s.Restart()
		defer func() {
			s.Stop()
			s.Env = s.Env[:len(s.Env)-1]
			s.Restart()
		}()
		if r := s.Do("GET", "api/v1/user", Basic(u.Name, u.Password)); r.Status != http.StatusUnauthorized {
			t.Fatalf("API password: %d %s", r.Status, r.Body)
		}
		b := s.Web(t)
		b.Get("user/login")
		if p := b.Post("user/login", url.Values{"user_name": {u.Name}, "password": {u.Password}}); p.Status != http.StatusSeeOther || p.Location != "/user/webauthn" {
			t.Fatalf("password step: %d %q", p.Status, p.Location)
		}
		p := b.Get("user/webauthn")
		p.MustContain(t, http.StatusOK, "must be a domain name", `href="/user/two_factor"`)
		if strings.Contains(p.Body, `id="webauthn-signin"`) {
			t.Fatal("the key is offered without a relying party")
		}
		if p := b.Get("user/webauthn/assertion"); p.Status != http.StatusForbidden {
			t.Fatalf("options without a relying party: %d %s", p.Status, p.Body)
		}
		if signedIn(b) {
			t.Fatal("signed in by the password alone")
		}
		p = w.Get("user/settings/security")
		p.MustContain(t, http.StatusOK, "Soft key", `id="webauthn-unavailable"`)
		if strings.Contains(p.Body, `id="webauthn-register"`) {
			t.Fatal("registration offered without a relying party")
		}
	})

	t.Run("removing the key", func(t *testing.T) {
		id := keyID(t, w)
		w.Get("user/settings/security")
		if p := w.Post("user/settings/security/webauthn/delete", url.Values{"id": {strconv.FormatInt(id, 10)}}); p.Status != http.StatusSeeOther {
			t.Fatalf("delete: %d %s", p.Status, p.Body)
		}
		w.Get("user/settings/security").MustContain(t, http.StatusOK, "The security key has been removed.", "You have no security keys.")
		// The passcode remains the second factor.
		b := s.Web(t)
		b.Get("user/login")
		if p := b.Post("user/login", url.Values{"user_name": {u.Name}, "password": {u.Password}}); p.Status != http.StatusSeeOther || p.Location != "/user/two_factor" {
			t.Fatalf("password step without a key: %d %q", p.Status, p.Location)
		}
		if p := b.Get("user/two_factor"); strings.Contains(p.Body, `href="/user/webauthn"`) {
			t.Fatal("the passcode form offers a removed key")
		}
	})
}

// keyID is the id of the first key on the security settings of w.
func keyID(t *testing.T, w *Web) int64 {
	t.Helper()
	body := w.Get("user/settings/security").Body
	_, rest, ok := strings.Cut(body, `action="/user/settings/security/webauthn/delete"`)
	if !ok {
		t.Fatalf("no key on the page: %s", body)
	}
	_, rest, _ = strings.Cut(rest, `name="id" value="`)
	v, _, _ := strings.Cut(rest, `"`)
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("key id %q: %v", v, err)
	}
	return id
}
