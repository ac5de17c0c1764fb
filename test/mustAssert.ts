// A test must be able to fail: one that asserts nothing fails (every suite but the editor's,
// whose Playwright `waitFor` calls are its assertions).
beforeEach(() => expect.hasAssertions());
