// The emulator's throwaway CA is the shared one: the Meross cloud's TLS listeners and the MQTT broker's are tested alike.
export { createTestPki, type TestPki } from '@homeops/test-kit';
