package cdsapi

import (
	"net/http"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/auth"
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

// served is h, or nil (the route answers 501) when a store it needs is
// missing: a nil store interface is a nil any.
func served(h func(http.ResponseWriter, *http.Request, msgkit.ServiceUUID) error, needs ...any) http.Handler {
	for _, n := range needs {
		if n == nil {
			return nil
		}
	}
	return serve(h)
}

// importMaxBody limits an import body (an array of contacts); the CDS
// interface gives no maximum import size.
const importMaxBody = 16 << 20

// routes are the operations of the CDS interface, by resource.
func routes(a *api) []httpapi.Route {
	const s = BasePath + "services/{serviceUuid}"
	news := []auth.Privilege{auth.PrivNews}
	var campaigns any // a nil *campaign.Service is no nil any
	if a.b.Campaigns != nil {
		campaigns = a.b.Campaigns
	}
	handlers := map[string]http.Handler{
		"GET /cds/contacts":                served(a.listContacts, a.b.Contacts),
		"POST /cds/contacts":               served(a.createContact, a.b.Contacts),
		"GET /cds/contacts/{contactId}":    served(a.getContact, a.b.Contacts),
		"PUT /cds/contacts/{contactId}":    served(a.replaceContact, a.b.Contacts),
		"PATCH /cds/contacts/{contactId}":  served(a.patchContact, a.b.Contacts),
		"DELETE /cds/contacts/{contactId}": served(a.deleteContact, a.b.Contacts),
		"GET /cds/lists":                   served(a.listLists, a.b.Contacts),
		"POST /cds/lists":                  served(a.createList, a.b.Contacts),
		"GET /cds/lists/{listId}":          served(a.getList, a.b.Contacts),
		"PUT /cds/lists/{listId}":          served(a.updateList, a.b.Contacts),
		"DELETE /cds/lists/{listId}":       served(a.deleteList, a.b.Contacts),
		"GET /campaigns":                   served(a.listCampaigns, campaigns),
		"POST /campaigns":                  served(a.createCampaign, campaigns),
		"GET /campaigns/{campaignUuid}":    served(a.getCampaign, campaigns),
		"PUT /campaigns/{campaignUuid}":    served(a.replaceCampaign, campaigns),
		"PATCH /campaigns/{campaignUuid}":  served(a.patchCampaign, campaigns),
		"DELETE /campaigns/{campaignUuid}": served(a.deleteCampaign, campaigns),
	}
	a.catalogHandlers(handlers)
	var rs []httpapi.Route
	add := func(method, path string) {
		// Every POST creates (members: creates or updates a membership),
		// so a client may retry it with an Idempotency-Key.
		rs = append(rs, httpapi.Route{Method: method, Path: s + path, Privileges: news, Idempotent: method == http.MethodPost,
			Handler: handlers[method+" "+path]})
	}
	crud := func(coll, item string, methods ...string) {
		add(http.MethodGet, coll)
		add(http.MethodPost, coll)
		for _, m := range methods {
			add(m, coll+"/"+item)
		}
	}
	all := []string{http.MethodGet, http.MethodPut, http.MethodDelete}
	noDelete := []string{http.MethodGet, http.MethodPut}

	// contacts and import
	crud("/cds/contacts", "{contactId}", http.MethodGet, http.MethodPut, http.MethodPatch, http.MethodDelete)
	rs = append(rs, httpapi.Route{Method: http.MethodPost, Path: s + "/cds/imports", Privileges: news, MaxBody: importMaxBody,
		Idempotent: true, Handler: served(a.importContacts, a.b.Imports)})
	// lists
	crud("/cds/lists", "{listId}", all...)
	// fields
	add(http.MethodGet, "/cds/fields")
	crud("/cds/custom_fields", "{customFieldsId}", all...)
	// segmentation sets and groups
	crud("/cds/segmentation_sets", "{segmentationSetId}", all...)
	crud("/cds/segmentation_groups", "{segmentationGroupId}", all...)
	// subscriptions, options and members
	crud("/cds/subscriptions", "{subscriptionId}", all...)
	crud("/cds/subscriptions/options", "{optionId}", all...)
	add(http.MethodGet, "/cds/subscriptions/members")
	add(http.MethodPost, "/cds/subscriptions/members")
	// groups, touchpoints, interests
	crud("/cds/groups", "{groupId}", all...)
	crud("/cds/group_lists", "{groupListId}", noDelete...)
	crud("/cds/group_segmentation", "{groupSegmentationId}", noDelete...)
	crud("/cds/touchpoints", "{touchpointId}", all...)
	add(http.MethodGet, "/cds/touchpoints/members")
	add(http.MethodPost, "/cds/touchpoints/members")
	crud("/cds/interests", "{interestId}", all...)
	add(http.MethodGet, "/cds/interests/members")
	add(http.MethodPost, "/cds/interests/members")
	// campaigns
	crud("/campaigns", "{campaignUuid}", http.MethodGet, http.MethodPut, http.MethodPatch, http.MethodDelete)
	return rs
}
