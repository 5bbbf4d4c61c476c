package v1

import (
	"net/http"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/user"
)

func toEmails(list []user.Email, u *user.User) []*types.Email {
	out := make([]*types.Email, 0, len(list))
	for _, e := range list {
		out = append(out, &types.Email{Email: e.Email, Verified: e.Activated, Primary: e.Primary, UserID: u.ID, UserName: u.Name})
	}
	return out
}

// listEmails serves GET /user/emails.
func (a *API) listEmails(w http.ResponseWriter, r *http.Request) {
	u := doer(r)
	list, err := a.Users.ListEmails(r.Context(), u.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toEmails(list, u))
}

// addEmails serves POST /user/emails.
func (a *API) addEmails(w http.ResponseWriter, r *http.Request) {
	var o types.CreateEmailOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	u := doer(r)
	if _, err := a.Users.AddEmails(r.Context(), u, o.Emails); err != nil {
		a.fail(w, r, err)
		return
	}
	list, err := a.Users.ListEmails(r.Context(), u.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, toEmails(list, u))
}

// deleteEmails serves DELETE /user/emails.
func (a *API) deleteEmails(w http.ResponseWriter, r *http.Request) {
	var o types.DeleteEmailOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := a.Users.DeleteEmails(r.Context(), doer(r), o.Emails); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}
