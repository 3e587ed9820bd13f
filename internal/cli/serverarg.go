package cli

import "errors"

// serverArg is the server a command was given as its one optional
// argument, "" when none; an argument together with --url (flagURL) is
// refused, since either could be meant.
func serverArg(args []string, flagURL string) (string, error) {
	if len(args) == 0 {
		return "", nil
	}
	if flagURL != "" {
		return "", errors.New("give the server either as an argument or with --url, not both")
	}
	return args[0], nil
}
