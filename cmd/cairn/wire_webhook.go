package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/cairn-forge/cairn/internal/queue"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
	"github.com/cairn-forge/cairn/internal/webhook"
)

// wireWebhooks builds the durable queue and the webhook service: hooks of
// deleted repositories and accounts go with them, new repositories get the
// default hooks. The event sources are the API's (wireWebhookSources).
func (a *app) wireWebhooks() error {
	w := a.cfg.Webhook
	backoff := w.RetryBackoff
	if backoff <= 0 {
		backoff = 10 * time.Second
	}
	timeout := w.DeliverTimeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	a.queue = queue.New(a.db, queue.Options{
		Workers: w.DeliveryWorkers, GroupLimit: w.PerHookLimit, MaxAttempts: w.DeliveryAttempts,
		// A delivery ends within its timeout: a job whose process died is
		// taken again soon after (mail jobs have leases of their own).
		Lease:   timeout + 10*time.Second,
		Backoff: func(failed int) time.Duration { return min(backoff<<min(failed-1, 16), time.Hour) },
	})
	client, err := webhook.NewClient(webhook.ClientOptions{
		AllowedHostList: w.AllowedHostList, Timeout: timeout, SkipTLSVerify: w.SkipTLSVerify,
		ProxyURL: w.ProxyURL, ProxyHosts: w.ProxyHosts,
	})
	if err != nil {
		return fmt.Errorf("[webhook]: %w", err)
	}
	a.webhooks = webhook.NewService(a.db, a.queue, client, a.box, webhook.Options{
		Disabled: a.cfg.Security.DisableWebhooks, KeepDeliveries: w.DeliveriesKept, DisableAfter: w.DisableAfter,
	})
	// After a burst of pushes, the repository's references are packed and
	// its size measured (a walk of its files) on the queue, off the
	// pushes' path.
	a.queue.Handle("repo.size", func(ctx context.Context, j *queue.Job) error {
		id, err := strconv.ParseInt(string(j.Payload), 10, 64)
		if err != nil {
			return queue.Permanent(err)
		}
		return a.repos.Housekeep(ctx, id)
	})
	a.repos.SetSizeLater(func(ctx context.Context, id int64) error {
		return a.queue.Enqueue(ctx, "repo.size", []byte(strconv.FormatInt(id, 10)),
			queue.EnqueueOptions{Key: strconv.FormatInt(id, 10), Delay: time.Second})
	})
	a.repos.AddCreateHook(func(ctx context.Context, _ *user.User, r *repo.Repository) error {
		return a.webhooks.CopyDefaultHooks(ctx, r.ID)
	})
	a.repos.AddDeleteHook(func(ctx context.Context, r *repo.Repository) error {
		return a.webhooks.DeleteRepoHooks(ctx, r.ID)
	})
	a.orgs.AddDeleteHook(func(ctx context.Context, o *user.User) error {
		return a.webhooks.DeleteOwnerHooks(ctx, o.ID)
	})
	a.users.AddDeleteHook(ownerHookCleanup{a.webhooks})
	return nil
}

// ownerHookCleanup is the user delete hook that removes a user's hooks.
type ownerHookCleanup struct{ hooks *webhook.Service }

func (c ownerHookCleanup) CheckDelete(context.Context, *user.User) error { return nil }

func (c ownerHookCleanup) Purge(ctx context.Context, u *user.User) error {
	return c.hooks.DeleteOwnerHooks(ctx, u.ID)
}
