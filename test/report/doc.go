// Package report holds the browser test of `sglaunch bench report`: two
// benchmark runs against the simulator, their report opened in headless
// Chromium (Debian's chromium package), and checks from the rendered DOM
// and a screenshot that every chart draws its data. It is a package of
// its own so that it can run alone: go test ./test/report.
//
// go test ./test/report -update also refreshes the screenshot the README
// shows (docs/report.png).
package report
