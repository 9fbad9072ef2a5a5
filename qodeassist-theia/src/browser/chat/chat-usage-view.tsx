import { nls } from '@theia/core';
import { codicon } from '@theia/core/lib/browser';
import * as React from '@theia/core/shared/react';
import { ImageNotice, noticeText } from './chat-image-notice';
import { ChatCosts, formatCost } from './chat-usage';

/** How many agents the notice offers as buttons; the picker lists them all. */
const OFFERED_AGENTS = 4;

/** Images the agent takes none of: said at once, with a button per agent that takes them (switching attaches what was held back). */
export function ImageNoticeView({ notice, switchTo, dismiss }: { notice: ImageNotice; switchTo(agent: string): void; dismiss(): void }): React.ReactElement {
    return <div className='qa-image-notice' role='alert' data-image-notice={notice.agent}>
        <span className='qa-image-notice-text'><i className={codicon('file-media')} /> {noticeText(notice)}</span>
        {notice.imageAgents.slice(0, OFFERED_AGENTS).map(agent => <button key={agent} className='theia-button secondary' data-switch-agent={agent}
            title={nls.localize('qodeassist/chat/switchForImages', 'Use {0} for this chat', agent)} onClick={() => switchTo(agent)}>{agent}</button>)}
        <button className='qa-icon-button' data-action='dismiss-image-notice' title={nls.localize('qodeassist/chat/dismiss', 'Dismiss')}
            aria-label={nls.localize('qodeassist/chat/dismiss', 'Dismiss')} onClick={dismiss}><i className={codicon('close')} /></button>
    </div>;
}

/** The popover's cost lines: the last turn and the whole chat, at the prices the requests were received at; none without a price. */
export function CostRows({ costs }: { costs: ChatCosts }): React.ReactElement | null {
    if (costs.chat) {
        return <div className='qa-manifest-cost' data-cost>
            {costs.turn && <div data-cost-turn>{nls.localize('qodeassist/chat/turnCost', 'Last turn')}: {formatCost(costs.turn)}</div>}
            <div data-cost-chat>{nls.localize('qodeassist/chat/chatCost', 'This chat')}: {formatCost(costs.chat)}</div>
        </div>;
    }
    if (costs.unpriced) {
        return <div className='qa-manifest-note' data-cost-unpriced>
            {nls.localize('qodeassist/chat/noPrice', 'No cost shown: this chat\'s models have no price. Add [pricing."<model>"] to the provider or agent file (see the README).')}
        </div>;
    }
    return null;
}
