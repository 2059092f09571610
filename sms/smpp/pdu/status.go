package pdu

import "fmt"

// CommandID is a PDU's command_id (SMPP 3.4 5.1.2.1); a response's is
// its request's with RespBit set.
type CommandID uint32

// The commands an ESME needs.
const (
	CmdGenericNack         CommandID = 0x80000000
	CmdBindReceiver        CommandID = 0x00000001
	CmdBindReceiverResp    CommandID = 0x80000001
	CmdBindTransmitter     CommandID = 0x00000002
	CmdBindTransmitterResp CommandID = 0x80000002
	CmdSubmitSM            CommandID = 0x00000004
	CmdSubmitSMResp        CommandID = 0x80000004
	CmdDeliverSM           CommandID = 0x00000005
	CmdDeliverSMResp       CommandID = 0x80000005
	CmdUnbind              CommandID = 0x00000006
	CmdUnbindResp          CommandID = 0x80000006
	CmdBindTransceiver     CommandID = 0x00000009
	CmdBindTransceiverResp CommandID = 0x80000009
	CmdEnquireLink         CommandID = 0x00000015
	CmdEnquireLinkResp     CommandID = 0x80000015
	CmdDataSM              CommandID = 0x00000103
	CmdDataSMResp          CommandID = 0x80000103

	// RespBit marks a response.
	RespBit CommandID = 0x80000000
)

var commandNames = map[CommandID]string{
	CmdGenericNack: "generic_nack", CmdBindReceiver: "bind_receiver", CmdBindReceiverResp: "bind_receiver_resp",
	CmdBindTransmitter: "bind_transmitter", CmdBindTransmitterResp: "bind_transmitter_resp",
	CmdSubmitSM: "submit_sm", CmdSubmitSMResp: "submit_sm_resp", CmdDeliverSM: "deliver_sm", CmdDeliverSMResp: "deliver_sm_resp",
	CmdUnbind: "unbind", CmdUnbindResp: "unbind_resp", CmdBindTransceiver: "bind_transceiver", CmdBindTransceiverResp: "bind_transceiver_resp",
	CmdEnquireLink: "enquire_link", CmdEnquireLinkResp: "enquire_link_resp", CmdDataSM: "data_sm", CmdDataSMResp: "data_sm_resp",
}

// String names the command as the specification does.
func (c CommandID) String() string {
	if n, ok := commandNames[c]; ok {
		return n
	}
	return fmt.Sprintf("command_id(0x%08x)", uint32(c))
}

// IsResponse reports whether c is a response (generic_nack included).
func (c CommandID) IsResponse() bool { return c&RespBit != 0 }

// Status is a response's command_status (SMPP 3.4 5.1.3).
type Status uint32

// Every command status of SMPP 3.4.
const (
	ESME_ROK              Status = 0x00000000 // no error
	ESME_RINVMSGLEN       Status = 0x00000001 // message length is invalid
	ESME_RINVCMDLEN       Status = 0x00000002 // command length is invalid
	ESME_RINVCMDID        Status = 0x00000003 // invalid command id
	ESME_RINVBNDSTS       Status = 0x00000004 // incorrect bind status for the command
	ESME_RALYBND          Status = 0x00000005 // already in bound state
	ESME_RINVPRTFLG       Status = 0x00000006 // invalid priority flag
	ESME_RINVREGDLVFLG    Status = 0x00000007 // invalid registered delivery flag
	ESME_RSYSERR          Status = 0x00000008 // system error
	ESME_RINVSRCADR       Status = 0x0000000A // invalid source address
	ESME_RINVDSTADR       Status = 0x0000000B // invalid destination address
	ESME_RINVMSGID        Status = 0x0000000C // message id is invalid
	ESME_RBINDFAIL        Status = 0x0000000D // bind failed
	ESME_RINVPASWD        Status = 0x0000000E // invalid password
	ESME_RINVSYSID        Status = 0x0000000F // invalid system id
	ESME_RCANCELFAIL      Status = 0x00000011 // cancel_sm failed
	ESME_RREPLACEFAIL     Status = 0x00000013 // replace_sm failed
	ESME_RMSGQFUL         Status = 0x00000014 // message queue full
	ESME_RINVSERTYP       Status = 0x00000015 // invalid service type
	ESME_RINVNUMDESTS     Status = 0x00000033 // invalid number of destinations
	ESME_RINVDLNAME       Status = 0x00000034 // invalid distribution list name
	ESME_RINVDESTFLAG     Status = 0x00000040 // invalid destination flag (submit_multi)
	ESME_RINVSUBREP       Status = 0x00000042 // invalid submit with replace request
	ESME_RINVESMCLASS     Status = 0x00000043 // invalid esm_class
	ESME_RCNTSUBDL        Status = 0x00000044 // cannot submit to a distribution list
	ESME_RSUBMITFAIL      Status = 0x00000045 // submit_sm or submit_multi failed
	ESME_RINVSRCTON       Status = 0x00000048 // invalid source address TON
	ESME_RINVSRCNPI       Status = 0x00000049 // invalid source address NPI
	ESME_RINVDSTTON       Status = 0x00000050 // invalid destination address TON
	ESME_RINVDSTNPI       Status = 0x00000051 // invalid destination address NPI
	ESME_RINVSYSTYP       Status = 0x00000053 // invalid system_type
	ESME_RINVREPFLAG      Status = 0x00000054 // invalid replace_if_present flag
	ESME_RINVNUMMSGS      Status = 0x00000055 // invalid number of messages
	ESME_RTHROTTLED       Status = 0x00000058 // throttling error: the ESME exceeded its allowed rate
	ESME_RINVSCHED        Status = 0x00000061 // invalid scheduled delivery time
	ESME_RINVEXPIRY       Status = 0x00000062 // invalid validity period
	ESME_RINVDFTMSGID     Status = 0x00000063 // predefined message invalid or not found
	ESME_RX_T_APPN        Status = 0x00000064 // ESME receiver temporary application error
	ESME_RX_P_APPN        Status = 0x00000065 // ESME receiver permanent application error
	ESME_RX_R_APPN        Status = 0x00000066 // ESME receiver reject message error
	ESME_RQUERYFAIL       Status = 0x00000067 // query_sm failed
	ESME_RINVOPTPARSTREAM Status = 0x000000C0 // error in the optional part of the PDU body
	ESME_ROPTPARNOTALLWD  Status = 0x000000C1 // optional parameter not allowed
	ESME_RINVPARLEN       Status = 0x000000C2 // invalid parameter length
	ESME_RMISSINGOPTPARAM Status = 0x000000C3 // expected optional parameter missing
	ESME_RINVOPTPARAMVAL  Status = 0x000000C4 // invalid optional parameter value
	ESME_RDELIVERYFAILURE Status = 0x000000FE // delivery failure (data_sm_resp)
	ESME_RUNKNOWNERR      Status = 0x000000FF // unknown error
)

var statusNames = map[Status]string{
	ESME_ROK: "ESME_ROK", ESME_RINVMSGLEN: "ESME_RINVMSGLEN", ESME_RINVCMDLEN: "ESME_RINVCMDLEN", ESME_RINVCMDID: "ESME_RINVCMDID",
	ESME_RINVBNDSTS: "ESME_RINVBNDSTS", ESME_RALYBND: "ESME_RALYBND", ESME_RINVPRTFLG: "ESME_RINVPRTFLG", ESME_RINVREGDLVFLG: "ESME_RINVREGDLVFLG",
	ESME_RSYSERR: "ESME_RSYSERR", ESME_RINVSRCADR: "ESME_RINVSRCADR", ESME_RINVDSTADR: "ESME_RINVDSTADR", ESME_RINVMSGID: "ESME_RINVMSGID",
	ESME_RBINDFAIL: "ESME_RBINDFAIL", ESME_RINVPASWD: "ESME_RINVPASWD", ESME_RINVSYSID: "ESME_RINVSYSID", ESME_RCANCELFAIL: "ESME_RCANCELFAIL",
	ESME_RREPLACEFAIL: "ESME_RREPLACEFAIL", ESME_RMSGQFUL: "ESME_RMSGQFUL", ESME_RINVSERTYP: "ESME_RINVSERTYP", ESME_RINVNUMDESTS: "ESME_RINVNUMDESTS",
	ESME_RINVDLNAME: "ESME_RINVDLNAME", ESME_RINVDESTFLAG: "ESME_RINVDESTFLAG", ESME_RINVSUBREP: "ESME_RINVSUBREP", ESME_RINVESMCLASS: "ESME_RINVESMCLASS",
	ESME_RCNTSUBDL: "ESME_RCNTSUBDL", ESME_RSUBMITFAIL: "ESME_RSUBMITFAIL", ESME_RINVSRCTON: "ESME_RINVSRCTON", ESME_RINVSRCNPI: "ESME_RINVSRCNPI",
	ESME_RINVDSTTON: "ESME_RINVDSTTON", ESME_RINVDSTNPI: "ESME_RINVDSTNPI", ESME_RINVSYSTYP: "ESME_RINVSYSTYP", ESME_RINVREPFLAG: "ESME_RINVREPFLAG",
	ESME_RINVNUMMSGS: "ESME_RINVNUMMSGS", ESME_RTHROTTLED: "ESME_RTHROTTLED", ESME_RINVSCHED: "ESME_RINVSCHED", ESME_RINVEXPIRY: "ESME_RINVEXPIRY",
	ESME_RINVDFTMSGID: "ESME_RINVDFTMSGID", ESME_RX_T_APPN: "ESME_RX_T_APPN", ESME_RX_P_APPN: "ESME_RX_P_APPN", ESME_RX_R_APPN: "ESME_RX_R_APPN",
	ESME_RQUERYFAIL: "ESME_RQUERYFAIL", ESME_RINVOPTPARSTREAM: "ESME_RINVOPTPARSTREAM", ESME_ROPTPARNOTALLWD: "ESME_ROPTPARNOTALLWD",
	ESME_RINVPARLEN: "ESME_RINVPARLEN", ESME_RMISSINGOPTPARAM: "ESME_RMISSINGOPTPARAM", ESME_RINVOPTPARAMVAL: "ESME_RINVOPTPARAMVAL",
	ESME_RDELIVERYFAILURE: "ESME_RDELIVERYFAILURE", ESME_RUNKNOWNERR: "ESME_RUNKNOWNERR",
}

// String names the status as the specification does; statuses it
// reserves or leaves to vendors are named by number.
func (s Status) String() string {
	if n, ok := statusNames[s]; ok {
		return n
	}
	return fmt.Sprintf("command_status(0x%08x)", uint32(s))
}

// Named reports whether the specification names s; a status it reserves
// or leaves to vendors is not named.
func (s Status) Named() bool {
	_, ok := statusNames[s]
	return ok
}

// Statuses lists every status the specification names.
func Statuses() []Status {
	out := make([]Status, 0, len(statusNames))
	for s := range statusNames {
		out = append(out, s)
	}
	return out
}

// Error is a response's non-zero command_status as an error.
type Error struct {
	Command CommandID
	Status  Status
}

func (e *Error) Error() string { return fmt.Sprintf("smpp: %s: %s", e.Command, e.Status) }
