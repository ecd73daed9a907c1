import '@homeops/web-kit/base.css';
import '@homeops/web-kit/access.css';
import './dashboard.css';
import { ApiClient } from '@homeops/web-kit';
import { render } from 'preact';
import { App } from './app.js';

render(<App client={new ApiClient()} />, document.getElementById('app')!);
