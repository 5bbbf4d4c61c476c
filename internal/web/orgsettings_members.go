package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/org"
	"github.com/cairn-forge/cairn/internal/user"
)

// orgMemberRow is one member of the members page.
type orgMemberRow struct {
	User *user.User
	org.MemberRole
	// IsSelf: the visitor; CanToggle: the visitor may show or hide the
	// membership; CanRemove: may remove the member.
	IsSelf, CanToggle, CanRemove bool
}

// orgMembersPage is the data of /org/{org}/members.
type orgMembersPage struct {
	Members []orgMemberRow
	Total   int64
	Pager   pager
	// ShowRoles shows the public and owner flags (members see them).
	ShowRoles bool
}

// orgMembers serves GET /org/{org}/members: every member for members and
// site administrators, the public members the visitor may see for others
// (as the API's member list), in a fixed number of queries.
func (h *Handler) orgMembers(w http.ResponseWriter, r *http.Request) error {
	oc, err := h.loadOrgPage(r, orgAnyone, "members")
	if err != nil {
		return err
	}
	ctx := r.Context()
	d := doer(r)
	where, args := "u.id IN (SELECT om.uid FROM org_user om WHERE om.org_id = ?)", []any{oc.Org.ID}
	if !oc.insider() {
		cond, cargs := access.UserCond(d)
		where = "u.id IN (SELECT om.uid FROM org_user om WHERE om.org_id = ? AND om.is_public = ?) AND " + cond
		args = append([]any{oc.Org.ID, true}, cargs...)
	}
	page := pageNumber(r)
	list, total, err := h.Users.Store.ListPage(ctx, where, args, "u.lower_name, u.id", listPageSize, (page-1)*listPageSize)
	if err != nil {
		return err
	}
	p := orgMembersPage{Total: total, Pager: newPager(r, page, total), ShowRoles: oc.insider()}
	ids := make([]int64, 0, len(list))
	for _, u := range list {
		ids = append(ids, u.ID)
	}
	roles, err := h.Orgs.MemberRoles(ctx, oc.Org.ID, ids)
	if err != nil {
		return err
	}
	for _, u := range list {
		row := orgMemberRow{User: u, MemberRole: roles[u.ID], IsSelf: d != nil && d.ID == u.ID}
		row.CanToggle = row.IsSelf || oc.Role.Owner
		row.CanRemove = oc.Role.Owner && !row.IsSelf
		p.Members = append(p.Members, row)
	}
	return h.renderOrg(w, r, http.StatusOK, "org_members", "Members", oc, p)
}

// orgMemberAction serves POST /org/{org}/members/action/{action} with the
// member's uid: "public" and "private" show or hide a membership (one's own,
// or anyone's for owners), "remove" takes a member out of the organization
// and all its teams (owners), "leave" takes the visitor out.
func (h *Handler) orgMemberAction(w http.ResponseWriter, r *http.Request) error {
	action := chi.URLParam(r, "action")
	need := orgInsider
	if action == "remove" {
		need = orgOwnerOnly
	}
	oc, err := h.loadOrgPage(r, need, "members")
	if err != nil {
		return err
	}
	ctx := r.Context()
	d := doer(r)
	back := oc.Link + "/members"
	uid := d.ID
	if action != "leave" {
		if uid, err = formID(r.PostFormValue("uid")); err != nil {
			return err
		}
	}
	member, err := h.Orgs.IsMember(ctx, oc.Org.ID, uid)
	if err != nil {
		return err
	}
	if !member {
		return errs.NotFound("not a member")
	}
	var msg string
	switch action {
	case "public", "private":
		if uid != d.ID && !oc.Role.Owner {
			return errs.Forbidden("Only the owners may change the visibility of someone else's membership.")
		}
		err = h.Orgs.SetPublicMembership(ctx, oc.Org, uid, action == "public")
		msg = "The membership is now " + action + "."
	case "remove":
		err = h.Orgs.RemoveMember(ctx, oc.Org, uid)
		msg = "The member has been removed."
	case "leave":
		if err = h.Orgs.RemoveMember(ctx, oc.Org, uid); err == nil {
			return h.orgDone(w, r, "/", "You have left "+oc.Org.Name+".")
		}
	default:
		return errs.NotFound("no such action")
	}
	if err != nil {
		return h.orgRefused(w, r, back, err)
	}
	return h.orgDone(w, r, back, msg)
}
