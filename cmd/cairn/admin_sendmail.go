package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"
)

// adminSendmail is Gitea's `admin sendmail`: a mail to every active
// account, queued (one job each, in one transaction) for the running
// server's workers.
func adminSendmail(ctx context.Context, args []string, e adminEnv) error {
	c := newAdminCommand("sendmail", "cairn admin sendmail --title TITLE --content TEXT [--force]",
		"Mails every active account (with [mailer] ENABLED). The mails are queued in the\n"+
			"database and sent by 'cairn serve', which retries while the mail server refuses them.")
	title := c.fs.String("title", "", "the subject of the mail")
	content := c.fs.String("content", "", "the text of the mail")
	force := c.fs.Bool("force", false, "send without asking for confirmation")
	if done, err := c.parse(args, &e); done || err != nil {
		return err
	}
	if strings.TrimSpace(*title) == "" {
		return usageError{"--title is required"}
	}
	a, err := openInstance(ctx, e)
	if err != nil {
		return err
	}
	defer a.close()
	if a.mail == nil {
		return errors.New("mail is off: set [mailer] ENABLED = true (and its server) first")
	}
	list, err := a.users.Store.List(ctx, "WHERE u.type = 0 AND u.is_active = ? AND u.prohibit_login = ? AND u.email <> '' ORDER BY u.id", true, false)
	if err != nil {
		return err
	}
	if !*force {
		fmt.Fprintf(e.stdout, "Send %q to %d accounts? [y/N] ", *title, len(list))
		answer, _ := bufio.NewReader(e.stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			return errors.New("nothing sent")
		}
	}
	err = a.db.WithTx(ctx, func(ctx context.Context) error {
		for _, u := range list {
			if err := a.mail.SendText(ctx, u.Name, u.Email, *title, *content); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Queued %d mails.\n", len(list))
	return nil
}
