package cdsapi

import (
	"net/http"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/contacts"
)

// BasePath is the prefix of every path of the family, where a platform's
// ServeMux mounts Handler.
const BasePath = "/news/v1/"

// Handler serves the customer data storage and campaign API under
// /news/v1/services/{serviceUuid}/ from b: a bearer token, a principal
// acting for {serviceUuid} and the privilege news on every route; errors
// in the CDS body. It panics when opts.Auth is nil.
func Handler(opts httpapi.Options, b Backend) http.Handler {
	return httpapi.FamilyHandler(opts, spec(&api{b: b}))
}

func spec(a *api) httpapi.FamilySpec {
	return httpapi.FamilySpec{Family: httpapi.CDS, Auth: httpapi.AuthBearer, Tenant: true, Routes: routes(a)}
}

// importMaxBody limits an import body (an array of contacts); the CDS
// interface gives no maximum import size.
const importMaxBody = 16 << 20

// routes are the operations of the CDS interface, by resource. Every POST
// creates (members: creates or updates a membership), so a client may
// retry it with an Idempotency-Key. A route whose service the Backend
// lacks, or whose records its contacts service does not keep, answers 501.
func routes(a *api) []httpapi.Route {
	const s = BasePath + "services/{serviceUuid}"
	news := []auth.Privilege{auth.PrivNews}
	noContacts, noCampaigns := a.b.Contacts == nil, a.b.Campaigns == nil
	noCatalog, noImports := noContacts || !a.b.Contacts.HasCatalog(), noContacts || !a.b.Contacts.HasImports()
	r := func(method, path string, h handlerFunc, missing bool) httpapi.Route {
		return httpapi.Route{Method: method, Path: s + path, Privileges: news, Idempotent: method == http.MethodPost,
			Serve: tenantScoped(h), Missing: missing}
	}
	return []httpapi.Route{
		// contacts and import
		r(http.MethodGet, "/cds/contacts", a.listContacts, noContacts),
		r(http.MethodPost, "/cds/contacts", a.createContact, noContacts),
		r(http.MethodGet, "/cds/contacts/{contactId}", a.getContact, noContacts),
		r(http.MethodPut, "/cds/contacts/{contactId}", a.replaceContact, noContacts),
		r(http.MethodPatch, "/cds/contacts/{contactId}", a.patchContact, noContacts),
		r(http.MethodDelete, "/cds/contacts/{contactId}", a.deleteContact, noContacts),
		{Method: http.MethodPost, Path: s + "/cds/imports", Privileges: news, MaxBody: importMaxBody, Idempotent: true,
			Serve: tenantScoped(a.importContacts), Missing: noImports},
		// lists
		r(http.MethodGet, "/cds/lists", a.listLists, noContacts),
		r(http.MethodPost, "/cds/lists", a.createList, noContacts),
		r(http.MethodGet, "/cds/lists/{listId}", a.getList, noContacts),
		r(http.MethodPut, "/cds/lists/{listId}", a.updateList, noContacts),
		r(http.MethodDelete, "/cds/lists/{listId}", a.deleteList, noContacts),
		// fields
		r(http.MethodGet, "/cds/fields", a.fields, noCatalog),
		// custom fields
		r(http.MethodGet, "/cds/custom_fields", a.listRecords(contacts.KindCustomField), noCatalog),
		r(http.MethodPost, "/cds/custom_fields", a.createRecord(contacts.KindCustomField), noCatalog),
		r(http.MethodGet, "/cds/custom_fields/{customFieldsId}", a.getRecord(contacts.KindCustomField, "customFieldsId"), noCatalog),
		r(http.MethodPut, "/cds/custom_fields/{customFieldsId}", a.updateRecord(contacts.KindCustomField, "customFieldsId"), noCatalog),
		r(http.MethodDelete, "/cds/custom_fields/{customFieldsId}", a.deleteRecord(contacts.KindCustomField, "customFieldsId"), noCatalog),
		// segmentation sets and groups
		r(http.MethodGet, "/cds/segmentation_sets", a.listRecords(contacts.KindSegmentationSet), noCatalog),
		r(http.MethodPost, "/cds/segmentation_sets", a.createRecord(contacts.KindSegmentationSet), noCatalog),
		r(http.MethodGet, "/cds/segmentation_sets/{segmentationSetId}", a.getRecord(contacts.KindSegmentationSet, "segmentationSetId"), noCatalog),
		r(http.MethodPut, "/cds/segmentation_sets/{segmentationSetId}", a.updateRecord(contacts.KindSegmentationSet, "segmentationSetId"), noCatalog),
		r(http.MethodDelete, "/cds/segmentation_sets/{segmentationSetId}", a.deleteRecord(contacts.KindSegmentationSet, "segmentationSetId"), noCatalog),
		r(http.MethodGet, "/cds/segmentation_groups", a.listRecords(contacts.KindSegmentationGroup), noCatalog),
		r(http.MethodPost, "/cds/segmentation_groups", a.createRecord(contacts.KindSegmentationGroup), noCatalog),
		r(http.MethodGet, "/cds/segmentation_groups/{segmentationGroupId}", a.getRecord(contacts.KindSegmentationGroup, "segmentationGroupId"), noCatalog),
		r(http.MethodPut, "/cds/segmentation_groups/{segmentationGroupId}", a.updateRecord(contacts.KindSegmentationGroup, "segmentationGroupId"), noCatalog),
		r(http.MethodDelete, "/cds/segmentation_groups/{segmentationGroupId}", a.deleteRecord(contacts.KindSegmentationGroup, "segmentationGroupId"), noCatalog),
		// subscriptions, options and members
		r(http.MethodGet, "/cds/subscriptions", a.listRecords(contacts.KindSubscription), noCatalog),
		r(http.MethodPost, "/cds/subscriptions", a.createRecord(contacts.KindSubscription), noCatalog),
		r(http.MethodGet, "/cds/subscriptions/{subscriptionId}", a.getRecord(contacts.KindSubscription, "subscriptionId"), noCatalog),
		r(http.MethodPut, "/cds/subscriptions/{subscriptionId}", a.updateRecord(contacts.KindSubscription, "subscriptionId"), noCatalog),
		r(http.MethodDelete, "/cds/subscriptions/{subscriptionId}", a.deleteRecord(contacts.KindSubscription, "subscriptionId"), noCatalog),
		r(http.MethodGet, "/cds/subscriptions/options", a.listRecords(contacts.KindOption), noCatalog),
		r(http.MethodPost, "/cds/subscriptions/options", a.createRecord(contacts.KindOption), noCatalog),
		r(http.MethodGet, "/cds/subscriptions/options/{optionId}", a.getRecord(contacts.KindOption, "optionId"), noCatalog),
		r(http.MethodPut, "/cds/subscriptions/options/{optionId}", a.updateRecord(contacts.KindOption, "optionId"), noCatalog),
		r(http.MethodDelete, "/cds/subscriptions/options/{optionId}", a.deleteRecord(contacts.KindOption, "optionId"), noCatalog),
		r(http.MethodGet, "/cds/subscriptions/members", a.listMembers(contacts.MemberOption), noCatalog),
		r(http.MethodPost, "/cds/subscriptions/members", a.setMember(contacts.MemberOption), noCatalog),
		// groups, touchpoints, interests
		r(http.MethodGet, "/cds/groups", a.listRecords(contacts.KindGroup), noCatalog),
		r(http.MethodPost, "/cds/groups", a.createRecord(contacts.KindGroup), noCatalog),
		r(http.MethodGet, "/cds/groups/{groupId}", a.getRecord(contacts.KindGroup, "groupId"), noCatalog),
		r(http.MethodPut, "/cds/groups/{groupId}", a.updateRecord(contacts.KindGroup, "groupId"), noCatalog),
		r(http.MethodDelete, "/cds/groups/{groupId}", a.deleteRecord(contacts.KindGroup, "groupId"), noCatalog),
		r(http.MethodGet, "/cds/group_lists", a.listRecords(contacts.KindGroupList), noCatalog),
		r(http.MethodPost, "/cds/group_lists", a.createRecord(contacts.KindGroupList), noCatalog),
		r(http.MethodGet, "/cds/group_lists/{groupListId}", a.getRecord(contacts.KindGroupList, "groupListId"), noCatalog),
		r(http.MethodPut, "/cds/group_lists/{groupListId}", a.updateRecord(contacts.KindGroupList, "groupListId"), noCatalog),
		r(http.MethodGet, "/cds/group_segmentation", a.listRecords(contacts.KindGroupSegmentation), noCatalog),
		r(http.MethodPost, "/cds/group_segmentation", a.createRecord(contacts.KindGroupSegmentation), noCatalog),
		r(http.MethodGet, "/cds/group_segmentation/{groupSegmentationId}", a.getRecord(contacts.KindGroupSegmentation, "groupSegmentationId"), noCatalog),
		r(http.MethodPut, "/cds/group_segmentation/{groupSegmentationId}", a.updateRecord(contacts.KindGroupSegmentation, "groupSegmentationId"), noCatalog),
		r(http.MethodGet, "/cds/touchpoints", a.listRecords(contacts.KindTouchpoint), noCatalog),
		r(http.MethodPost, "/cds/touchpoints", a.createRecord(contacts.KindTouchpoint), noCatalog),
		r(http.MethodGet, "/cds/touchpoints/{touchpointId}", a.getRecord(contacts.KindTouchpoint, "touchpointId"), noCatalog),
		r(http.MethodPut, "/cds/touchpoints/{touchpointId}", a.updateRecord(contacts.KindTouchpoint, "touchpointId"), noCatalog),
		r(http.MethodDelete, "/cds/touchpoints/{touchpointId}", a.deleteRecord(contacts.KindTouchpoint, "touchpointId"), noCatalog),
		r(http.MethodGet, "/cds/touchpoints/members", a.listMembers(contacts.MemberTouchpoint), noCatalog),
		r(http.MethodPost, "/cds/touchpoints/members", a.setMember(contacts.MemberTouchpoint), noCatalog),
		r(http.MethodGet, "/cds/interests", a.listRecords(contacts.KindInterest), noCatalog),
		r(http.MethodPost, "/cds/interests", a.createRecord(contacts.KindInterest), noCatalog),
		r(http.MethodGet, "/cds/interests/{interestId}", a.getRecord(contacts.KindInterest, "interestId"), noCatalog),
		r(http.MethodPut, "/cds/interests/{interestId}", a.updateRecord(contacts.KindInterest, "interestId"), noCatalog),
		r(http.MethodDelete, "/cds/interests/{interestId}", a.deleteRecord(contacts.KindInterest, "interestId"), noCatalog),
		r(http.MethodGet, "/cds/interests/members", a.listMembers(contacts.MemberInterest), noCatalog),
		r(http.MethodPost, "/cds/interests/members", a.setMember(contacts.MemberInterest), noCatalog),
		// campaigns
		r(http.MethodGet, "/campaigns", a.listCampaigns, noCampaigns),
		r(http.MethodPost, "/campaigns", a.createCampaign, noCampaigns),
		r(http.MethodGet, "/campaigns/{campaignUuid}", a.getCampaign, noCampaigns),
		r(http.MethodPut, "/campaigns/{campaignUuid}", a.replaceCampaign, noCampaigns),
		r(http.MethodPatch, "/campaigns/{campaignUuid}", a.patchCampaign, noCampaigns),
		r(http.MethodDelete, "/campaigns/{campaignUuid}", a.deleteCampaign, noCampaigns),
	}
}

// tenantScoped adapts h, which serves the tenant of the path (the Tenant
// middleware checked that the caller acts for it).
func tenantScoped(h handlerFunc) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		svc, _ := httpapi.ServiceFrom(r.Context())
		return h(w, r, svc)
	}
}
