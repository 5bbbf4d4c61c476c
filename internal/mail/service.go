package mail

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/queue"
	"github.com/cairn-forge/cairn/internal/user"
)

// Queue job kinds.
const (
	kindAccount = "mail.account" // activation or password reset of one account
	kindIssue   = "mail.issue"   // an issue event: fans out to kindIssueTo
	kindIssueTo = "mail.issue.to"
	kindText    = "mail.text" // a text from an administrator (cairn admin sendmail)
)

// Options are the mail service's dependencies and settings.
type Options struct {
	Queue  *queue.Queue
	Sender Sender
	Users  *user.Store
	Codes  *user.TimeCodes
	// RootURL is the public URL, ending in "/"; links start with it.
	RootURL string
	// AppName names the instance in subjects and texts.
	AppName string
	// ActivateLife and ResetLife are the lifetimes of the links.
	ActivateLife, ResetLife time.Duration
	// AttemptTimeout bounds one sending attempt; the queue reserves mail
	// jobs for AttemptTimeout + leaseMargin, so that no other worker takes
	// a job being sent and sends it twice.
	AttemptTimeout time.Duration
	// Notifications, when set, mails issue and pull request activity.
	Notifications *Notifications
}

// Service queues and sends mail.
type Service struct {
	o      Options
	domain string
	views  *views
}

// NewService returns the mail service and registers its queue handlers.
func NewService(o Options) (*Service, error) {
	u, err := url.Parse(o.RootURL)
	if err != nil {
		return nil, err
	}
	if o.AppName == "" {
		o.AppName = "Cairn"
	}
	v, err := loadViews()
	if err != nil {
		return nil, err
	}
	s := &Service{o: o, domain: u.Hostname(), views: v}
	handle := func(kind string, h queue.Handler) {
		o.Queue.Handle(kind, h)
		if o.AttemptTimeout > 0 {
			o.Queue.SetLease(kind, o.AttemptTimeout+leaseMargin)
		}
	}
	handle(kindAccount, s.sendAccountMail)
	handle(kindText, s.sendText)
	if o.Notifications != nil {
		o.Notifications.s = s
		handle(kindIssue, o.Notifications.fanOut)
		handle(kindIssueTo, o.Notifications.sendOne)
	}
	return s, nil
}

// leaseMargin is how much longer than a sending attempt the queue reserves
// a mail job.
const leaseMargin = 10 * time.Second

// accountJob is the payload of kindAccount: the link is made when the mail
// is sent, so no secret waits in the queue and its lifetime starts then.
type accountJob struct {
	Purpose string `json:"purpose"`
	UserID  int64  `json:"user_id"`
}

// SendActivation queues the activation mail of u in the transaction ctx
// carries. While one is waiting, another is not queued.
func (s *Service) SendActivation(ctx context.Context, u *user.User) error {
	return s.enqueueAccount(ctx, user.CodeActivate, u)
}

// SendResetPassword queues the password reset mail of u, as SendActivation.
func (s *Service) SendResetPassword(ctx context.Context, u *user.User) error {
	return s.enqueueAccount(ctx, user.CodeResetPassword, u)
}

// purposeRegisterNotify is the welcome mail of an account an
// administrator created with send_notify.
const purposeRegisterNotify = "register_notify"

// SendRegisterNotify queues the welcome mail of an account an
// administrator created, as SendActivation.
func (s *Service) SendRegisterNotify(ctx context.Context, u *user.User) error {
	return s.enqueueAccount(ctx, purposeRegisterNotify, u)
}

func (s *Service) enqueueAccount(ctx context.Context, purpose string, u *user.User) error {
	b, err := json.Marshal(accountJob{Purpose: purpose, UserID: u.ID})
	if err != nil {
		return err
	}
	return s.o.Queue.Enqueue(ctx, kindAccount, b, queue.EnqueueOptions{Key: purpose + ":" + strconv.FormatInt(u.ID, 10)})
}

// ActivateLife and ResetLife are the lifetimes of the links, for the pages
// that tell them.
func (s *Service) ActivateLife() time.Duration { return s.o.ActivateLife }

// ResetLife is the lifetime of a password reset link.
func (s *Service) ResetLife() time.Duration { return s.o.ResetLife }

// sendAccountMail renders and sends an activation or reset mail.
func (s *Service) sendAccountMail(ctx context.Context, j *queue.Job) error {
	var p accountJob
	if err := json.Unmarshal(j.Payload, &p); err != nil {
		return queue.Permanent(err)
	}
	u, err := s.o.Users.GetByID(ctx, p.UserID)
	if errs.IsNotFound(err) {
		return nil // the account is gone: nothing to send
	}
	if err != nil {
		return err
	}
	var view, subject, path string
	var life time.Duration
	switch p.Purpose {
	case user.CodeActivate:
		if u.IsActive {
			return nil // activated meanwhile
		}
		view, subject, path, life = "activate", "Please activate your account", "user/activate?code=", s.o.ActivateLife
	case user.CodeResetPassword:
		view, subject, path, life = "reset_password", "Recover your account", "user/recover_account?code=", s.o.ResetLife
	case purposeRegisterNotify: // Gitea's subject
		view, subject, path = "register_notify", "Welcome to "+s.o.AppName, "user/login"
	default:
		return queue.Permanent(fmt.Errorf("unknown account mail %q", p.Purpose))
	}
	link := s.o.RootURL + path
	if p.Purpose != purposeRegisterNotify { // a link with a code
		link += url.QueryEscape(s.o.Codes.Make(p.Purpose, u, life))
	}
	data := map[string]any{"AppName": s.o.AppName, "User": u.Name, "Link": link, "Life": humanDuration(life), "RootURL": s.o.RootURL}
	m, err := s.views.render(view, data)
	if err != nil {
		return queue.Permanent(err)
	}
	m.To, m.ToName, m.Subject = u.Email, u.Name, subject
	return s.send(ctx, m)
}

// send hands m to the sender; a message no retry can send fails the job.
func (s *Service) send(ctx context.Context, m *Message) error {
	if s.o.AttemptTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.o.AttemptTimeout)
		defer cancel()
	}
	err := s.o.Sender.Send(ctx, m)
	if err != nil && IsPermanent(err) {
		return queue.Permanent(err)
	}
	return err
}

// textJob is the payload of kindText.
type textJob struct {
	To      string `json:"to"`
	ToName  string `json:"to_name"`
	Subject string `json:"subject"`
	Body    string `json:"body"`
}

// SendText queues a plain mail from an administrator to one address.
func (s *Service) SendText(ctx context.Context, toName, to, subject, body string) error {
	b, err := json.Marshal(textJob{To: to, ToName: toName, Subject: subject, Body: body})
	if err != nil {
		return err
	}
	return s.o.Queue.Enqueue(ctx, kindText, b, queue.EnqueueOptions{})
}

func (s *Service) sendText(ctx context.Context, j *queue.Job) error {
	var p textJob
	if err := json.Unmarshal(j.Payload, &p); err != nil {
		return queue.Permanent(err)
	}
	m, err := s.views.render("text", map[string]any{"Body": p.Body, "AppName": s.o.AppName, "RootURL": s.o.RootURL})
	if err != nil {
		return queue.Permanent(err)
	}
	m.To, m.ToName, m.Subject = p.To, p.ToName, p.Subject
	return s.send(ctx, m)
}

// humanDuration writes d as "3 hours" or "45 minutes".
func humanDuration(d time.Duration) string {
	if d >= time.Hour && d%time.Hour == 0 {
		if d == time.Hour {
			return "1 hour"
		}
		return strconv.Itoa(int(d/time.Hour)) + " hours"
	}
	m := int(d / time.Minute)
	if m == 1 {
		return "1 minute"
	}
	return strconv.Itoa(m) + " minutes"
}
