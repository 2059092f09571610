module github.com/msgkit/msgkit

go 1.26

require (
	github.com/google/go-cmp v0.7.0
	github.com/nyaruka/phonenumbers v1.8.1
	pgregory.net/rapid v1.3.0
)

require (
	github.com/stretchr/testify v1.12.1 // indirect
	golang.org/x/text v0.23.0 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
)
