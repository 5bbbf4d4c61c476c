package types

import "testing"

func TestWireTypesLabel(t *testing.T) {
	checkWireTypes(t, []wireType{
		{CreateLabelOption{}, false, nil}, {EditLabelOption{}, false, nil}, {IssueLabelsOption{}, false, nil},
		{CreateMilestoneOption{}, false, nil}, {EditMilestoneOption{}, false, nil},
	})
}
