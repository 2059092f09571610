package httpapi

import (
	"net/http"

	"github.com/msgkit/msgkit/auth"
)

// CDSHandler serves the customer data storage and campaign API (document 1)
// under /news/v1/services/{serviceUuid}/: a bearer token, a principal acting
// for {serviceUuid} and the privilege news on every route; errors in the
// CDS body. It panics when opts.Auth is nil.
func CDSHandler(opts Options) http.Handler {
	o := opts.withDefaults()
	o.needAuth("CDSHandler")
	m := newFamilyMux(CDS)
	m.register(o, true, cdsRoutes())
	return o.base(CDS, Bearer(CDS, o.Auth)(m))
}

// cdsImportMaxBody limits an import body (an array of contacts); document 1
// gives no maximum import size.
const cdsImportMaxBody = 16 << 20

// cdsRoutes are the operations of document 1, section 4.
func cdsRoutes() []route {
	const s = "/news/v1/services/{serviceUuid}"
	news := []auth.Privilege{auth.PrivNews}
	var rs []route
	add := func(method, path string) { rs = append(rs, route{method: method, path: s + path, privs: news}) }
	crud := func(coll, item string, methods ...string) {
		add(http.MethodGet, coll)
		add(http.MethodPost, coll)
		for _, m := range methods {
			add(m, coll+"/"+item)
		}
	}
	all := []string{http.MethodGet, http.MethodPut, http.MethodDelete}
	noDelete := []string{http.MethodGet, http.MethodPut}

	// 4.1 contacts and import
	crud("/cds/contacts", "{contactId}", http.MethodGet, http.MethodPut, http.MethodPatch, http.MethodDelete)
	rs = append(rs, route{method: http.MethodPost, path: s + "/cds/imports", privs: news, maxBody: cdsImportMaxBody})
	// 4.2 lists
	crud("/cds/lists", "{listId}", all...)
	// 4.3 fields
	add(http.MethodGet, "/cds/fields")
	crud("/cds/custom_fields", "{customFieldsId}", all...)
	// 4.4 segmentation sets and groups
	crud("/cds/segmentation_sets", "{segmentationSetId}", all...)
	crud("/cds/segmentation_groups", "{segmentationGroupId}", all...)
	// 4.5 subscriptions, options and members
	crud("/cds/subscriptions", "{subscriptionId}", all...)
	crud("/cds/subscriptions/options", "{optionId}", all...)
	add(http.MethodGet, "/cds/subscriptions/members")
	add(http.MethodPost, "/cds/subscriptions/members")
	// 4.6 groups, touchpoints, interests
	crud("/cds/groups", "{groupId}", all...)
	crud("/cds/group_lists", "{groupListId}", noDelete...)
	crud("/cds/group_segmentation", "{groupSegmentationId}", noDelete...)
	crud("/cds/touchpoints", "{touchpointId}", all...)
	add(http.MethodGet, "/cds/touchpoints/members")
	add(http.MethodPost, "/cds/touchpoints/members")
	crud("/cds/interests", "{interestId}", all...)
	add(http.MethodGet, "/cds/interests/members")
	add(http.MethodPost, "/cds/interests/members")
	// 4.7 campaigns
	crud("/campaigns", "{campaignUuid}", http.MethodGet, http.MethodPut, http.MethodPatch, http.MethodDelete)
	return rs
}
